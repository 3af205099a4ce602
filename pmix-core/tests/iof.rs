//! I/O forwarding end to end in one process: a real server, a client on the real
//! progress thread, a host that accepts pulls and pushes.

mod util;

use pmix_core::iof::{IofChunk, IofHandler};
use pmix_core::server::{Host, HostCall, HostReply, Server, ServerConfig};
use pmix_core::{ProcId, Value};
use pmix_sys as sys;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use util::*;

#[derive(Default)]
struct IofHost {
    calls: Mutex<Vec<String>>,
}

impl Host for IofHost {
    fn call(&self, call: HostCall) -> pmix_core::Result<HostReply> {
        match call {
            HostCall::IofPull {
                procs,
                channels,
                directives,
                done,
            } => {
                self.calls.lock().unwrap().push(format!(
                    "pull {} {} {}",
                    procs.len(),
                    channels,
                    directives.len()
                ));
                done(Ok(()));
                Ok(HostReply::Pending)
            }
            HostCall::PushStdin {
                source,
                targets,
                data,
                ..
            } => {
                self.calls.lock().unwrap().push(format!(
                    "push {} {} {:?}",
                    source.rank,
                    targets.len(),
                    data.map(|d| String::from_utf8_lossy(&d).to_string())
                ));
                Ok(HostReply::Completed)
            }
            other => other.unsupported(),
        }
    }
}

#[derive(Default)]
struct Got {
    chunks: Mutex<Vec<IofChunk>>,
    cv: Condvar,
}

impl Got {
    fn wait(&self, n: usize) -> Vec<IofChunk> {
        let g = self.chunks.lock().unwrap();
        let (g, _) = self
            .cv
            .wait_timeout_while(g, Duration::from_secs(30), |c| c.len() < n)
            .unwrap();
        g.clone()
    }
}

#[test]
fn large_deliveries_arrive_whole_in_order_and_pushes_reach_the_host() {
    let host = Arc::new(IofHost::default());
    let cfg = ServerConfig {
        id: ProcId::new(ns("srv-iof"), 0),
        tmpdir: Some(tmpdir("iof")),
        info: vec![info(
            sys::attrs::keys::PMIX_IOF_LOCAL_OUTPUT,
            Value::Bool(false),
        )],
    };
    let server = Server::start(cfg, host.clone()).unwrap();
    server
        .register_nspace(&ns("job"), 1, vec![info("pmix.job.size", Value::Uint32(1))])
        .unwrap();
    server
        .register_client(&ProcId::new(ns("job"), 0), pmix_core::sys::euid(), 0)
        .unwrap();
    let c = connect(&server, "job", 0).unwrap();
    let got = Arc::new(Got::default());
    let g2 = got.clone();
    let h: IofHandler = Arc::new(move |_, chunk| {
        g2.chunks.lock().unwrap().push(chunk.clone());
        g2.cv.notify_all();
    });
    let wild = ProcId::new(ns("job"), sys::PMIX_RANK_WILDCARD);
    let id = c
        .iof_pull_wait(
            vec![wild.clone()],
            sys::PMIX_FWD_STDOUT_CHANNEL,
            vec![],
            Some(h),
        )
        .unwrap();
    assert_eq!(id, 0);
    let src = ProcId::new(ns("job"), 3);
    let big: Vec<u8> = (0..10 << 20).map(|i| (i % 251) as u8).collect();
    server
        .iof_deliver(
            &src,
            sys::PMIX_FWD_STDOUT_CHANNEL,
            big.clone(),
            vec![],
            None,
        )
        .unwrap();
    let done = vec![info(sys::attrs::keys::PMIX_IOF_COMPLETE, Value::Bool(true))];
    server
        .iof_deliver(&src, sys::PMIX_FWD_STDOUT_CHANNEL, vec![], done, None)
        .unwrap();
    let chunks = got.wait(4);
    assert_eq!(chunks.len(), 4, "three pieces and the end of the stream");
    let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.clone()).collect();
    assert_eq!(joined.len(), big.len());
    assert!(joined == big, "the pieces arrive in order");
    assert!(chunks.iter().all(|c| c.source == src));
    let last = chunks.last().unwrap();
    assert!(last.data.is_empty() && pmix_core::iof::is_complete(&last.info));
    c.iof_push_wait(vec![wild], Some(b"in\n".to_vec()), vec![])
        .unwrap();
    c.iof_deregister_wait(id, vec![]).unwrap();
    assert_eq!(
        c.iof_deregister_wait(id, vec![]).unwrap_err().status,
        sys::PMIX_ERR_BAD_PARAM
    );
    assert_eq!(
        *host.calls.lock().unwrap(),
        vec!["pull 1 2 0", "push 0 1 Some(\"in\\n\")", "pull 1 2 1"]
    );
    c.finalize().unwrap();
    server.finalize();
}
