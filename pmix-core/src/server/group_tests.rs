//! Group operations driven through the state machine, in memory (the tests of
//! `server/group.rs`).
use super::super::connect::tests::{msgs, p, send, setup, statuses};
use super::super::*;
use crate::protocol::{DynReq, GroupOp as Op, ReplyData, ServerMsg};
use pmix_sys::attrs::keys as ak;

fn g(op: Op, name: &str, procs: Vec<ProcId>, info: Vec<Info>) -> DynReq {
    DynReq::Group {
        op: op as u8,
        id: name.into(),
        procs,
        info,
    }
}

fn ctx() -> Vec<Info> {
    vec![Info::new(ak::PMIX_GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)).unwrap()]
}

fn results(out: &[Action], conn: ConnId) -> Vec<Info> {
    msgs(out)
        .into_iter()
        .find_map(|(c, m)| match m {
            ServerMsg::Reply {
                data: ReplyData::Group(r),
                ..
            } if c == conn => Some(r.results),
            _ => None,
        })
        .expect("group results")
}

fn events(out: &[Action]) -> Vec<(ConnId, i32)> {
    msgs(out)
        .into_iter()
        .filter_map(|(c, m)| match m {
            ServerMsg::Event { status, .. } => Some((c, status)),
            _ => None,
        })
        .collect()
}

#[test]
fn construct_assigns_a_context_id_and_destruct_releases_the_name() {
    let mut s = setup();
    // a:0, a:1 and b:0 are connections 1, 2, 3.
    let members = vec![p("b", 0), p("a", 1), p("a", 0)];
    assert!(statuses(&send(
        &mut s,
        1,
        1,
        g(Op::Construct, "G", members.clone(), ctx())
    ))
    .is_empty());
    assert!(statuses(&send(
        &mut s,
        3,
        1,
        g(Op::Construct, "G", members.clone(), vec![])
    ))
    .is_empty());
    let out = send(&mut s, 2, 1, g(Op::Construct, "G", members.clone(), vec![]));
    assert_eq!(statuses(&out), vec![(1, 1, 0), (2, 1, 0), (3, 1, 0)]);
    let r = results(&out, 3);
    let c = r
        .iter()
        .find(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID)
        .and_then(|i| i.value.as_u64());
    assert_eq!(c, Some(1));
    assert_eq!(
        events(&out)
            .iter()
            .filter(|(_, st)| *st == sys::PMIX_GROUP_MEMBERSHIP_UPDATE)
            .count(),
        3
    );
    assert_eq!(s.group_members("G").map(|m| m.len()), Some(3));
    // The name is taken while the group exists; a group name expands in a connect.
    assert_eq!(
        statuses(&send(
            &mut s,
            1,
            2,
            g(Op::Construct, "G", members.clone(), vec![])
        )),
        vec![(1, 2, sys::PMIX_ERR_EXISTS)]
    );
    assert_eq!(s.expand_groups(vec![p("G", 1)]), vec![p("a", 1)]);
    send(&mut s, 1, 3, g(Op::Destruct, "G", vec![], vec![]));
    send(&mut s, 2, 3, g(Op::Destruct, "G", vec![], vec![]));
    let out = send(&mut s, 3, 3, g(Op::Destruct, "G", vec![], vec![]));
    assert_eq!(statuses(&out), vec![(1, 3, 0), (2, 3, 0), (3, 3, 0)]);
    assert_eq!(
        statuses(&send(&mut s, 1, 4, g(Op::Destruct, "G", vec![], vec![]))),
        vec![(1, 4, sys::PMIX_ERR_NOT_FOUND)]
    );
}

/// `setup()` plus namespace c of two ranks: c:0 here (connection 4), c:1 on
/// another server.
fn with_remote() -> ServerState {
    use super::super::connect::tests::ns;
    let mut s = setup();
    s.register_nspace(
        &ns("c"),
        1,
        vec![
            Info::new(ak::PMIX_JOB_SIZE, Value::Uint32(2)).unwrap(),
            Info::new(ak::PMIX_LOCAL_PEERS, Value::string("0")).unwrap(),
        ],
    );
    crate::server::state::connect_test_client(&mut s, &p("c", 0), 4, 1000);
    s
}

#[test]
fn a_member_of_another_server_that_ends_aborts_the_construct_here() {
    let mut s = with_remote();
    let members = vec![p("a", 0), p("c", 0), p("c", 1)];
    send(&mut s, 1, 1, g(Op::Construct, "G", members.clone(), vec![]));
    let out = send(&mut s, 4, 1, g(Op::Construct, "G", members.clone(), vec![]));
    // Every local member is in: the host collects the other server's part.
    let id = out
        .iter()
        .find_map(|a| match a {
            Action::Host(Upcall::Group { id, .. }) => Some(*id),
            _ => None,
        })
        .expect("group upcall");
    // The host says c:1 died on its node: both local members hear it and abort.
    let mut out = Vec::new();
    s.deregister_client(&p("c", 1), &mut out);
    assert_eq!(
        statuses(&out),
        vec![
            (1, 1, sys::PMIX_GROUP_CONSTRUCT_ABORT),
            (4, 1, sys::PMIX_GROUP_CONSTRUCT_ABORT)
        ]
    );
    assert_eq!(
        events(&out),
        vec![
            (1, sys::PMIX_GROUP_MEMBER_FAILED),
            (4, sys::PMIX_GROUP_MEMBER_FAILED)
        ]
    );
    // The host's late answer finds nothing to complete.
    let mut out = Vec::new();
    s.group_done(id, Ok(Vec::new()), &mut out);
    assert!(statuses(&out).is_empty());
    assert!(s.group_members("G").is_none());
    // A construct naming it afterwards aborts at once; an optional one goes on
    // without it.
    assert_eq!(
        statuses(&send(
            &mut s,
            1,
            2,
            g(Op::Construct, "H", members.clone(), vec![])
        )),
        vec![(1, 2, sys::PMIX_GROUP_CONSTRUCT_ABORT)]
    );
    let opt = vec![Info::new(ak::PMIX_GROUP_OPTIONAL, Value::Bool(true)).unwrap()];
    send(
        &mut s,
        1,
        3,
        g(Op::Construct, "I", members.clone(), opt.clone()),
    );
    let out = send(&mut s, 4, 3, g(Op::Construct, "I", members, opt));
    assert_eq!(statuses(&out), vec![(1, 3, 0), (4, 3, 0)]);
    assert_eq!(s.group_members("I"), Some(vec![p("a", 0), p("c", 0)]));
}

/// An optional construct spanning servers whose member c:1 (of the other server) ended,
/// in the order that used to abort it: the other server left c:1 out and sent its part,
/// this one still names it when its own members are in (it has not heard of the end),
/// and the host completes the construct before this server hears of it.
#[test]
fn an_optional_construct_forms_as_the_host_says_before_the_end_is_heard_here() {
    let mut s = with_remote();
    let members = vec![p("a", 0), p("c", 0), p("c", 1)];
    let opt = vec![Info::new(ak::PMIX_GROUP_OPTIONAL, Value::Bool(true)).unwrap()];
    // Only the second caller says optional (and asks for a context id): the host,
    // which decides for every server, hears both.
    send(&mut s, 1, 1, g(Op::Construct, "G", members.clone(), vec![]));
    let mut asked = opt;
    asked.extend(ctx());
    let out = send(&mut s, 4, 1, g(Op::Construct, "G", members.clone(), asked));
    let (id, info) = out
        .iter()
        .find_map(|a| match a {
            Action::Host(Upcall::Group {
                id, procs, info, ..
            }) => {
                assert_eq!(procs, &members, "this server still names c:1");
                Some((*id, info.clone()))
            }
            _ => None,
        })
        .expect("group upcall");
    for key in [ak::PMIX_GROUP_OPTIONAL, ak::PMIX_GROUP_ASSIGN_CONTEXT_ID] {
        assert!(
            info.iter()
                .any(|i| i.key.as_str() == key && i.value.is_true()),
            "the host is told {key}"
        );
    }
    // The host forms the group without c:1 and says so.
    let host = vec![
        Info::new(
            ak::PMIX_GROUP_MEMBERSHIP,
            Value::proc_array(&[p("a", 0), p("c", 0)]),
        )
        .unwrap(),
        Info::new(ak::PMIX_GROUP_CONTEXT_ID, Value::Size(1 << 20)).unwrap(),
    ];
    let mut out = Vec::new();
    s.group_done(id, Ok(host), &mut out);
    assert_eq!(statuses(&out), vec![(1, 1, 0), (4, 1, 0)]);
    let r = results(&out, 4);
    let got = r
        .iter()
        .find(|i| i.key.as_str() == ak::PMIX_GROUP_MEMBERSHIP)
        .map(|i| i.value.procs());
    assert_eq!(got, Some(vec![p("a", 0), p("c", 0)]));
    assert_eq!(s.group_members("G"), Some(vec![p("a", 0), p("c", 0)]));
    // The end heard late changes nothing.
    let mut out = Vec::new();
    s.deregister_client(&p("c", 1), &mut out);
    assert!(statuses(&out).is_empty());
    assert_eq!(s.group_members("G").map(|m| m.len()), Some(2));
}

#[test]
fn destruct_does_not_wait_for_a_lost_member() {
    let mut s = setup();
    let members = vec![p("a", 0), p("a", 1)];
    send(&mut s, 1, 1, g(Op::Construct, "G", members.clone(), vec![]));
    send(&mut s, 2, 1, g(Op::Construct, "G", members.clone(), vec![]));
    s.closed(2, &mut Vec::new());
    let out = send(&mut s, 1, 2, g(Op::Destruct, "G", vec![], vec![]));
    assert_eq!(statuses(&out), vec![(1, 2, sys::PMIX_ERR_LOST_CONNECTION)]);
    // With PMIX_GROUP_NOTIFY_TERMINATION the survivor hears of it and succeeds.
    let mut s = setup();
    let nt = vec![Info::new(ak::PMIX_GROUP_NOTIFY_TERMINATION, Value::Bool(true)).unwrap()];
    send(&mut s, 1, 1, g(Op::Construct, "H", members.clone(), nt));
    send(&mut s, 2, 1, g(Op::Construct, "H", members.clone(), vec![]));
    s.closed(2, &mut Vec::new());
    let out = send(&mut s, 1, 2, g(Op::Destruct, "H", vec![], vec![]));
    assert_eq!(statuses(&out), vec![(1, 2, 0)]);
    assert_eq!(events(&out), vec![(1, sys::PMIX_GROUP_MEMBER_FAILED)]);
}

#[test]
fn invitations_abort_unless_optional() {
    let mut s = setup();
    let out = send(
        &mut s,
        1,
        1,
        g(Op::Invite, "I", vec![p("a", 1), p("b", 0)], vec![]),
    );
    let mut ev = events(&out);
    ev.sort();
    assert_eq!(
        ev,
        vec![(2, sys::PMIX_GROUP_INVITED), (3, sys::PMIX_GROUP_INVITED)]
    );
    let out = send(&mut s, 2, 1, g(Op::Join, "I", vec![p("a", 0)], vec![]));
    assert_eq!(events(&out), vec![(1, sys::PMIX_GROUP_INVITE_ACCEPTED)]);
    let out = send(&mut s, 3, 1, g(Op::Decline, "I", vec![p("a", 0)], vec![]));
    // Everyone invited, the decliner too, and the leader hear of the abort.
    let mut ev: Vec<(ConnId, i32)> = events(&out)
        .into_iter()
        .filter(|e| e.1 == sys::PMIX_GROUP_CONSTRUCT_ABORT)
        .collect();
    ev.sort();
    assert_eq!(
        ev,
        vec![
            (1, sys::PMIX_GROUP_CONSTRUCT_ABORT),
            (2, sys::PMIX_GROUP_CONSTRUCT_ABORT),
            (3, sys::PMIX_GROUP_CONSTRUCT_ABORT)
        ]
    );
    assert_eq!(
        statuses(&out),
        vec![
            (1, 1, sys::PMIX_GROUP_CONSTRUCT_ABORT),
            (2, 1, sys::PMIX_GROUP_CONSTRUCT_ABORT),
            (3, 1, 0)
        ]
    );
    assert!(s.group_members("I").is_none());
    let opt = vec![Info::new(ak::PMIX_GROUP_OPTIONAL, Value::Bool(true)).unwrap()];
    send(
        &mut s,
        1,
        2,
        g(Op::Invite, "J", vec![p("a", 0), p("a", 1), p("b", 0)], opt),
    );
    send(&mut s, 2, 2, g(Op::Join, "J", vec![p("a", 0)], vec![]));
    let out = send(&mut s, 3, 2, g(Op::Decline, "J", vec![], vec![]));
    assert_eq!(statuses(&out), vec![(1, 2, 0), (2, 2, 0), (3, 2, 0)]);
    assert_eq!(s.group_members("J"), Some(vec![p("a", 0), p("a", 1)]));
    // Leaving tells the others.
    let out = send(&mut s, 2, 3, g(Op::Leave, "J", vec![], vec![]));
    assert_eq!(events(&out), vec![(1, sys::PMIX_GROUP_LEFT)]);
    assert_eq!(s.group_members("J"), Some(vec![p("a", 0)]));
}

#[test]
fn a_leader_that_invites_only_others_stays_out() {
    let mut s = setup();
    let want = ctx();
    send(
        &mut s,
        1,
        1,
        g(Op::Invite, "K", vec![p("a", 1), p("b", 0)], want),
    );
    send(&mut s, 2, 1, g(Op::Join, "K", vec![p("a", 0)], vec![]));
    let out = send(&mut s, 3, 1, g(Op::Join, "K", vec![p("a", 0)], vec![]));
    assert_eq!(statuses(&out), vec![(1, 1, 0), (2, 1, 0), (3, 1, 0)]);
    assert_eq!(s.group_members("K"), Some(vec![p("a", 1), p("b", 0)]));
    // Only the members hear of the completion, and it names the context id.
    let done: Vec<ConnId> = msgs(&out)
        .into_iter()
        .filter_map(|(c, m)| match m {
            ServerMsg::Event { status, info, .. }
                if status == sys::PMIX_GROUP_CONSTRUCT_COMPLETE
                    && info
                        .iter()
                        .any(|i| i.key.as_str() == ak::PMIX_GROUP_CONTEXT_ID) =>
            {
                Some(c)
            }
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![2, 3]);
}
