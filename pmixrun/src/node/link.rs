//! The link between the front end and one node daemon: a socket pair carrying frames
//! (the engine's frame format, a `u32` length and a body) whose bodies are [`Down`] or
//! [`Up`] messages in the engine's codec. Each side reads on one thread and writes
//! through a writer thread fed by a channel, so neither ever blocks on a full socket
//! while the other waits for it.

use super::upcall::{Answer, Fwd};
use pmix_core::codec::{decode_seq, encode_seq, Decoder, Wire};
use pmix_core::protocol::{self, FrameDecoder};
use pmix_core::{Error, Info, Nspace, ProcId, Result};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;

/// A request the front end makes of a node's server, answered with [`Up::Reply`].
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `Server::register_nspace`.
    RegisterNspace {
        /// The job.
        nspace: Nspace,
        /// Ranks on this node.
        nlocal: u32,
        /// This node's registration.
        info: Vec<Info>,
    },
    /// `Server::register_client`.
    RegisterClient {
        /// The rank.
        proc_: ProcId,
        /// Its uid.
        uid: u32,
        /// Its gid.
        gid: u32,
    },
    /// `Server::setup_fork` (the reply carries the environment).
    SetupFork {
        /// The rank.
        proc_: ProcId,
    },
    /// `Server::deregister_client`.
    DeregisterClient {
        /// The rank.
        proc_: ProcId,
    },
    /// `Server::deregister_nspace`.
    DeregisterNspace {
        /// The job.
        nspace: Nspace,
    },
}

/// Front end → daemon.
#[derive(Debug, Clone, PartialEq)]
pub enum Down {
    /// The first message: who the daemon's server is.
    Setup {
        /// The node id.
        node: u32,
        /// The node's host name alias.
        hostname: String,
        /// The server's identity.
        server: ProcId,
        /// The server's directory (rendezvous under it).
        tmpdir: String,
    },
    /// A request; id 0 asks for no reply.
    Call {
        /// Matches the reply.
        id: u64,
        /// The request.
        call: Call,
    },
    /// A fence this server handed its host completed: the concatenation of every
    /// participating server's blob (status 0), or a failure status.
    FenceDone {
        /// The daemon's id of the fence.
        id: u64,
        /// Outcome.
        status: i32,
        /// The concatenation.
        data: Vec<u8>,
    },
    /// Another node asks for one of our processes' data (`dmodex_request`).
    DmodexAsk {
        /// The front end's id of the request.
        id: u64,
        /// Whose data.
        proc_: ProcId,
        /// The requesting server's directives (`PMIX_REQUIRED_KEY`).
        info: Vec<Info>,
    },
    /// The answer to a direct modex this server asked for.
    DmodexDone {
        /// The daemon's id of the request.
        id: u64,
        /// Outcome.
        status: i32,
        /// The owner's blob.
        data: Vec<u8>,
    },
    /// The front end acted on an abort request.
    AbortDone {
        /// The daemon's id of the request.
        id: u64,
        /// Outcome.
        status: i32,
    },
    /// An event raised on another node, for this node's clients.
    Notify {
        /// Event code.
        status: i32,
        /// Who raised it.
        source: ProcId,
        /// Its range (the node's server delivers to its clients in range).
        range: u8,
        /// Event infos.
        info: Vec<Info>,
    },
    /// Finalize the server and exit.
    Shutdown,
    /// The launcher has recorded an [`Up::Finalized`].
    FinalizedSeen {
        /// The daemon's id.
        id: u64,
    },
    /// Output of a rank (anywhere) that this node's server pulled.
    IofDeliver {
        /// Whose output.
        source: ProcId,
        /// Its channel.
        channel: u16,
        /// The bytes (empty with `PMIX_IOF_COMPLETE` at the end of the stream).
        data: Vec<u8>,
        /// Infos of the chunk.
        info: Vec<Info>,
    },
    /// The front end completed an [`Up::Upcall`].
    UpcallDone {
        /// The daemon's id of the upcall.
        id: u64,
        /// Outcome.
        status: i32,
        /// Why it failed.
        msg: String,
        /// The result (on success).
        answer: Answer,
    },
    /// Define (or redefine) a process set at this node's server (`--pset`).
    Pset {
        /// Its name.
        name: String,
        /// Its members.
        members: Vec<ProcId>,
    },
    /// Run a `PMIx_Process_monitor` of a process of another node for the targets of
    /// this node it names (`Server::monitor_for`), answered with [`Up::MonitorAnswer`].
    MonitorAsk {
        /// The front end's id of the request.
        id: u64,
        /// Who asked.
        requester: ProcId,
        /// What to monitor.
        monitor: Info,
        /// The status code of its updates.
        code: i32,
        /// Its directives (the targets on this node).
        directives: Vec<Info>,
    },
    /// End monitors this node runs for `requester` (`Server::monitor_cancel_for`).
    MonitorCancel {
        /// Who asked for them.
        requester: ProcId,
        /// Their `PMIX_MONITOR_ID` (None: all of them; the requester went away).
        id: Option<String>,
    },
}

/// Daemon → front end.
#[derive(Debug, Clone, PartialEq)]
pub enum Up {
    /// The server started (status 0) or could not (status and message).
    Ready {
        /// Outcome.
        status: i32,
        /// Why not.
        msg: String,
    },
    /// The answer to a [`Down::Call`].
    Reply {
        /// The call's id.
        id: u64,
        /// Outcome.
        status: i32,
        /// Why not.
        msg: String,
        /// `setup_fork`'s environment.
        env: Vec<(String, String)>,
    },
    /// A client connected.
    Connected(ProcId),
    /// A client finalized; the front end answers [`Down::FinalizedSeen`] with this id
    /// (unless it is 0) once the launcher knows (the client is released only then, so its
    /// exit can never overtake its finalization).
    Finalized {
        /// The daemon's id.
        id: u64,
        /// Who.
        proc_: ProcId,
    },
    /// A client's connection closed before it finalized.
    Lost(ProcId),
    /// A client called `PMIx_Abort`.
    Abort {
        /// The daemon's id (for [`Down::AbortDone`]).
        id: u64,
        /// Who.
        proc_: ProcId,
        /// Status.
        status: i32,
        /// Message.
        msg: String,
        /// Targets.
        targets: Vec<ProcId>,
    },
    /// The server's `fence` upcall.
    Fence {
        /// The daemon's id (for [`Down::FenceDone`]).
        id: u64,
        /// Participants, sorted.
        procs: Vec<ProcId>,
        /// Directives.
        info: Vec<Info>,
        /// This server's blob.
        data: Vec<u8>,
    },
    /// The server's `direct_modex` upcall.
    Dmodex {
        /// The daemon's id (for [`Down::DmodexDone`]).
        id: u64,
        /// Whose data.
        proc_: ProcId,
        /// Directives.
        info: Vec<Info>,
    },
    /// The answer to a [`Down::DmodexAsk`].
    DmodexAnswer {
        /// The front end's id.
        id: u64,
        /// Outcome.
        status: i32,
        /// The blob.
        data: Vec<u8>,
    },
    /// The server's `notify_event` upcall.
    Notify {
        /// Who raised it.
        source: ProcId,
        /// Event code.
        status: i32,
        /// Range.
        range: u8,
        /// Event infos.
        info: Vec<Info>,
    },
    /// An upcall the front end serves for every node (see [`Fwd`]).
    Upcall {
        /// The daemon's id (for [`Down::UpcallDone`]).
        id: u64,
        /// The upcall.
        call: Fwd,
    },
    /// The answer to a [`Down::MonitorAsk`]: the first sample.
    MonitorAnswer {
        /// The front end's id.
        id: u64,
        /// Outcome.
        status: i32,
        /// The results.
        results: Vec<Info>,
    },
}

struct Pair(String, String);

impl Wire for Pair {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Pair(String::decode(d)?, String::decode(d)?))
    }
}

fn bad(t: u8, what: &str) -> Error {
    Error::unpack(format!("unknown {what} message {t}"))
}

impl Wire for Call {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Call::RegisterNspace {
                nspace,
                nlocal,
                info,
            } => {
                1u8.encode(out);
                nspace.encode(out);
                nlocal.encode(out);
                info.encode(out);
            }
            Call::RegisterClient { proc_, uid, gid } => {
                2u8.encode(out);
                proc_.encode(out);
                uid.encode(out);
                gid.encode(out);
            }
            Call::SetupFork { proc_ } => {
                3u8.encode(out);
                proc_.encode(out);
            }
            Call::DeregisterClient { proc_ } => {
                4u8.encode(out);
                proc_.encode(out);
            }
            Call::DeregisterNspace { nspace } => {
                5u8.encode(out);
                nspace.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => Call::RegisterNspace {
                nspace: Nspace::decode(d)?,
                nlocal: u32::decode(d)?,
                info: Vec::decode(d)?,
            },
            2 => Call::RegisterClient {
                proc_: ProcId::decode(d)?,
                uid: u32::decode(d)?,
                gid: u32::decode(d)?,
            },
            3 => Call::SetupFork {
                proc_: ProcId::decode(d)?,
            },
            4 => Call::DeregisterClient {
                proc_: ProcId::decode(d)?,
            },
            5 => Call::DeregisterNspace {
                nspace: Nspace::decode(d)?,
            },
            t => return Err(bad(t, "call")),
        })
    }
}

/// A message's fields in order (for the short ones).
trait Parts {
    fn encode_parts(&self, out: &mut Vec<u8>);
}

impl<A: Wire, B: Wire, C: Wire, D: Wire> Parts for (&A, &B, &C, &D) {
    fn encode_parts(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
        self.2.encode(out);
        self.3.encode(out);
    }
}

impl Wire for Down {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Down::Setup {
                node,
                hostname,
                server,
                tmpdir,
            } => {
                1u8.encode(out);
                (node, hostname, server, tmpdir).encode_parts(out);
            }
            Down::Call { id, call } => {
                2u8.encode(out);
                id.encode(out);
                call.encode(out);
            }
            Down::FenceDone { id, status, data } => {
                3u8.encode(out);
                id.encode(out);
                status.encode(out);
                data.encode(out);
            }
            Down::DmodexAsk { id, proc_, info } => {
                4u8.encode(out);
                id.encode(out);
                proc_.encode(out);
                info.encode(out);
            }
            Down::DmodexDone { id, status, data } => {
                5u8.encode(out);
                id.encode(out);
                status.encode(out);
                data.encode(out);
            }
            Down::AbortDone { id, status } => {
                6u8.encode(out);
                id.encode(out);
                status.encode(out);
            }
            Down::Notify {
                status,
                source,
                range,
                info,
            } => {
                7u8.encode(out);
                (status, source, range, info).encode_parts(out);
            }
            Down::Shutdown => 8u8.encode(out),
            Down::FinalizedSeen { id } => {
                9u8.encode(out);
                id.encode(out);
            }
            Down::IofDeliver {
                source,
                channel,
                data,
                info,
            } => {
                11u8.encode(out);
                (source, channel, data, info).encode_parts(out);
            }
            Down::UpcallDone {
                id,
                status,
                msg,
                answer,
            } => {
                10u8.encode(out);
                (id, status, msg, answer).encode_parts(out);
            }
            Down::Pset { name, members } => {
                12u8.encode(out);
                name.encode(out);
                members.encode(out);
            }
            Down::MonitorAsk {
                id,
                requester,
                monitor,
                code,
                directives,
            } => {
                13u8.encode(out);
                (id, requester, monitor, code).encode_parts(out);
                directives.encode(out);
            }
            Down::MonitorCancel { requester, id } => {
                14u8.encode(out);
                requester.encode(out);
                id.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => Down::Setup {
                node: u32::decode(d)?,
                hostname: String::decode(d)?,
                server: ProcId::decode(d)?,
                tmpdir: String::decode(d)?,
            },
            2 => Down::Call {
                id: u64::decode(d)?,
                call: Call::decode(d)?,
            },
            3 => Down::FenceDone {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                data: Vec::decode(d)?,
            },
            4 => Down::DmodexAsk {
                id: u64::decode(d)?,
                proc_: ProcId::decode(d)?,
                info: Vec::decode(d)?,
            },
            5 => Down::DmodexDone {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                data: Vec::decode(d)?,
            },
            6 => Down::AbortDone {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
            },
            7 => Down::Notify {
                status: i32::decode(d)?,
                source: ProcId::decode(d)?,
                range: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            8 => Down::Shutdown,
            9 => Down::FinalizedSeen {
                id: u64::decode(d)?,
            },
            11 => Down::IofDeliver {
                source: ProcId::decode(d)?,
                channel: u16::decode(d)?,
                data: Vec::decode(d)?,
                info: Vec::decode(d)?,
            },
            10 => Down::UpcallDone {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                msg: String::decode(d)?,
                answer: Answer::decode(d)?,
            },
            12 => Down::Pset {
                name: String::decode(d)?,
                members: Vec::decode(d)?,
            },
            13 => Down::MonitorAsk {
                id: u64::decode(d)?,
                requester: ProcId::decode(d)?,
                monitor: Info::decode(d)?,
                code: i32::decode(d)?,
                directives: Vec::decode(d)?,
            },
            14 => Down::MonitorCancel {
                requester: ProcId::decode(d)?,
                id: Option::decode(d)?,
            },
            t => return Err(bad(t, "front-end")),
        })
    }
}

impl Wire for Up {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Up::Ready { status, msg } => {
                1u8.encode(out);
                status.encode(out);
                msg.encode(out);
            }
            Up::Reply {
                id,
                status,
                msg,
                env,
            } => {
                2u8.encode(out);
                id.encode(out);
                status.encode(out);
                msg.encode(out);
                let pairs: Vec<Pair> = env
                    .iter()
                    .map(|(k, v)| Pair(k.clone(), v.clone()))
                    .collect();
                encode_seq(&pairs, out);
            }
            Up::Connected(p) => {
                3u8.encode(out);
                p.encode(out);
            }
            Up::Finalized { id, proc_ } => {
                4u8.encode(out);
                id.encode(out);
                proc_.encode(out);
            }
            Up::Lost(p) => {
                5u8.encode(out);
                p.encode(out);
            }
            Up::Abort {
                id,
                proc_,
                status,
                msg,
                targets,
            } => {
                6u8.encode(out);
                id.encode(out);
                proc_.encode(out);
                status.encode(out);
                msg.encode(out);
                targets.encode(out);
            }
            Up::Fence {
                id,
                procs,
                info,
                data,
            } => {
                7u8.encode(out);
                id.encode(out);
                procs.encode(out);
                info.encode(out);
                data.encode(out);
            }
            Up::Dmodex { id, proc_, info } => {
                8u8.encode(out);
                id.encode(out);
                proc_.encode(out);
                info.encode(out);
            }
            Up::DmodexAnswer { id, status, data } => {
                9u8.encode(out);
                id.encode(out);
                status.encode(out);
                data.encode(out);
            }
            Up::Notify {
                source,
                status,
                range,
                info,
            } => {
                10u8.encode(out);
                source.encode(out);
                status.encode(out);
                range.encode(out);
                info.encode(out);
            }
            Up::Upcall { id, call } => {
                11u8.encode(out);
                id.encode(out);
                call.encode(out);
            }
            Up::MonitorAnswer {
                id,
                status,
                results,
            } => (&12u8, id, status, results).encode_parts(out),
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => Up::Ready {
                status: i32::decode(d)?,
                msg: String::decode(d)?,
            },
            2 => Up::Reply {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                msg: String::decode(d)?,
                env: decode_seq::<Pair>(d)?
                    .into_iter()
                    .map(|p| (p.0, p.1))
                    .collect(),
            },
            3 => Up::Connected(ProcId::decode(d)?),
            4 => Up::Finalized {
                id: u64::decode(d)?,
                proc_: ProcId::decode(d)?,
            },
            5 => Up::Lost(ProcId::decode(d)?),
            6 => Up::Abort {
                id: u64::decode(d)?,
                proc_: ProcId::decode(d)?,
                status: i32::decode(d)?,
                msg: String::decode(d)?,
                targets: Vec::decode(d)?,
            },
            7 => Up::Fence {
                id: u64::decode(d)?,
                procs: Vec::decode(d)?,
                info: Vec::decode(d)?,
                data: Vec::decode(d)?,
            },
            8 => Up::Dmodex {
                id: u64::decode(d)?,
                proc_: ProcId::decode(d)?,
                info: Vec::decode(d)?,
            },
            9 => Up::DmodexAnswer {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                data: Vec::decode(d)?,
            },
            10 => Up::Notify {
                source: ProcId::decode(d)?,
                status: i32::decode(d)?,
                range: u8::decode(d)?,
                info: Vec::decode(d)?,
            },
            11 => Up::Upcall {
                id: u64::decode(d)?,
                call: Fwd::decode(d)?,
            },
            12 => Up::MonitorAnswer {
                id: u64::decode(d)?,
                status: i32::decode(d)?,
                results: Vec::decode(d)?,
            },
            t => return Err(bad(t, "daemon")),
        })
    }
}

/// The sending half of a link: queues messages for the writer thread (any thread,
/// never blocks). Sending after the link is gone does nothing.
#[derive(Clone)]
pub struct Sender(mpsc::Sender<Vec<u8>>);

impl Sender {
    /// Queue one message.
    pub fn send<T: Wire>(&self, msg: &T) {
        let mut frame = Vec::new();
        protocol::encode_frame_into(&protocol::encode(msg), &mut frame);
        if self.0.send(frame).is_err() {
            log::debug!("link: message dropped, the writer is gone");
        }
    }
}

/// Start the writer thread of `stream`; it ends (shutting the socket's write side) when
/// every [`Sender`] is dropped or the peer is gone.
pub fn writer(stream: UnixStream, name: &str) -> std::io::Result<Sender> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let mut s = stream;
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            for frame in rx {
                if let Err(e) = s.write_all(&frame) {
                    log::debug!("link: write failed: {e}");
                    return;
                }
            }
            let _ = s.shutdown(std::net::Shutdown::Write);
        })?;
    Ok(Sender(tx))
}

/// Read messages from `stream` until end of file or until `f` returns `false`, handing
/// each to `f`. A frame that does not decode ends the link (the peer is not speaking
/// this protocol).
///
/// # Errors
/// The read error or the decoding error that ended the link; `Ok` at a clean end of file
/// or when `f` asked to stop.
pub fn read_loop<T: Wire>(mut stream: UnixStream, mut f: impl FnMut(T) -> bool) -> Result<()> {
    let mut dec = FrameDecoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        while let Some(body) = dec.next_frame()? {
            if !f(protocol::decode::<T>(&body)?) {
                return Ok(());
            }
        }
        let n = match stream.read(&mut buf) {
            Ok(0) => {
                return if dec.has_partial() {
                    Err(Error::unpack("link closed inside a frame"))
                } else {
                    Ok(())
                }
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::new(
                    pmix_sys::PMIX_ERR_COMM_FAILURE,
                    format!("link read: {e}"),
                ))
            }
        };
        dec.push(buf.get(..n).unwrap_or_default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Value;

    fn p(r: u32) -> ProcId {
        ProcId::new(Nspace::new("job").expect("ns"), r)
    }

    fn roundtrip<T: Wire + PartialEq + std::fmt::Debug>(v: T) {
        let b = protocol::encode(&v);
        assert_eq!(protocol::decode::<T>(&b).expect("decode"), v);
        for cut in 0..b.len() {
            assert!(protocol::decode::<T>(&b[..cut]).is_err());
        }
    }

    #[test]
    fn messages_round_trip() {
        let info = vec![Info::new("k", Value::Uint32(3)).expect("info")];
        for m in [
            Down::Setup {
                node: 1,
                hostname: "node1".into(),
                server: p(1),
                tmpdir: "/t".into(),
            },
            Down::Call {
                id: 7,
                call: Call::RegisterNspace {
                    nspace: p(0).nspace,
                    nlocal: 2,
                    info: info.clone(),
                },
            },
            Down::Call {
                id: 8,
                call: Call::RegisterClient {
                    proc_: p(2),
                    uid: 1,
                    gid: 2,
                },
            },
            Down::Call {
                id: 9,
                call: Call::SetupFork { proc_: p(2) },
            },
            Down::Call {
                id: 0,
                call: Call::DeregisterClient { proc_: p(2) },
            },
            Down::Call {
                id: 0,
                call: Call::DeregisterNspace {
                    nspace: p(0).nspace,
                },
            },
            Down::FenceDone {
                id: 1,
                status: 0,
                data: vec![1, 2],
            },
            Down::DmodexAsk {
                id: 2,
                proc_: p(3),
                info: info.clone(),
            },
            Down::DmodexDone {
                id: 3,
                status: -46,
                data: vec![],
            },
            Down::AbortDone { id: 4, status: 0 },
            Down::Pset {
                name: "ps".into(),
                members: vec![p(0), p(3)],
            },
            Down::Notify {
                status: -1,
                source: p(0),
                range: pmix_sys::PMIX_RANGE_CUSTOM,
                info: info.clone(),
            },
            Down::Shutdown,
            Down::FinalizedSeen { id: 5 },
            Down::UpcallDone {
                id: 6,
                status: 0,
                msg: String::new(),
                answer: Answer::Pdata(vec![pmix_core::Pdata {
                    proc_: p(1),
                    key: pmix_core::Key::new("k").expect("key"),
                    value: Value::Uint32(1),
                }]),
            },
            Down::UpcallDone {
                id: 7,
                status: -46,
                msg: "no".into(),
                answer: Answer::Unit,
            },
            Down::UpcallDone {
                id: 8,
                status: 0,
                msg: String::new(),
                answer: Answer::Infos(info.clone()),
            },
            Down::IofDeliver {
                source: p(2),
                channel: pmix_sys::PMIX_FWD_STDOUT_CHANNEL,
                data: b"out\n".to_vec(),
                info: vec![],
            },
            Down::UpcallDone {
                id: 9,
                status: 0,
                msg: String::new(),
                answer: Answer::Nspace(p(0).nspace),
            },
        ] {
            roundtrip(m);
        }
        for m in [
            Up::Ready {
                status: 0,
                msg: String::new(),
            },
            Up::Reply {
                id: 9,
                status: 0,
                msg: "m".into(),
                env: vec![("A".into(), "1".into())],
            },
            Up::Connected(p(1)),
            Up::Finalized { id: 3, proc_: p(1) },
            Up::Lost(p(1)),
            Up::Abort {
                id: 1,
                proc_: p(1),
                status: 3,
                msg: "bye".into(),
                targets: vec![p(2)],
            },
            Up::Fence {
                id: 2,
                procs: vec![p(0), p(1)],
                info: info.clone(),
                data: vec![9; 20],
            },
            Up::Dmodex {
                id: 3,
                proc_: p(5),
                info: info.clone(),
            },
            Up::DmodexAnswer {
                id: 4,
                status: 0,
                data: vec![1],
            },
            Up::Notify {
                source: p(0),
                status: -5,
                range: 3,
                info: info.clone(),
            },
            Up::Upcall {
                id: 5,
                call: Fwd::Publish {
                    proc_: p(0),
                    info: info.clone(),
                },
            },
            Up::Upcall {
                id: 6,
                call: Fwd::Lookup {
                    proc_: p(0),
                    keys: vec!["a".into(), "b".into()],
                    info: info.clone(),
                },
            },
            Up::Upcall {
                id: 7,
                call: Fwd::Unpublish {
                    proc_: p(0),
                    keys: vec![],
                    info: info.clone(),
                },
            },
            Up::Upcall {
                id: 8,
                call: Fwd::Log {
                    proc_: p(0),
                    data: info.clone(),
                    directives: vec![],
                },
            },
            Up::Upcall {
                id: 9,
                call: Fwd::JobControl {
                    proc_: p(0),
                    targets: vec![p(1)],
                    directives: info.clone(),
                },
            },
            Up::Upcall {
                id: 12,
                call: Fwd::IofPull {
                    procs: vec![p(1)],
                    channels: pmix_sys::PMIX_FWD_STDERR_CHANNEL,
                    directives: info.clone(),
                },
            },
            Up::Upcall {
                id: 11,
                call: Fwd::Spawn {
                    requester: p(0),
                    job_info: info.clone(),
                    apps: vec![pmix_core::App {
                        cmd: Some(b"true".to_vec()),
                        argv: None,
                        env: None,
                        cwd: None,
                        maxprocs: 2,
                        info: info.clone(),
                    }],
                },
            },
            Up::Upcall {
                id: 10,
                call: Fwd::Group {
                    construct: true,
                    grp: "g".into(),
                    procs: vec![p(0), p(1)],
                    info: info.clone(),
                },
            },
            Up::Upcall {
                id: 11,
                call: Fwd::Monitor {
                    proc_: p(0),
                    monitor: Box::new(info[0].clone()),
                    error: -7,
                    directives: info.clone(),
                },
            },
            Up::MonitorAnswer {
                id: 12,
                status: 0,
                results: info.clone(),
            },
        ] {
            roundtrip(m);
        }
        for m in [
            Down::MonitorAsk {
                id: 3,
                requester: p(0),
                monitor: info[0].clone(),
                code: -7,
                directives: info.clone(),
            },
            Down::MonitorCancel {
                requester: p(0),
                id: Some("m".into()),
            },
            Down::MonitorCancel {
                requester: p(1),
                id: None,
            },
        ] {
            roundtrip(m);
        }
    }

    #[test]
    fn frames_cross_a_socket_pair_in_order() {
        let (a, b) = UnixStream::pair().expect("pair");
        let tx = writer(a, "test-writer").expect("writer");
        let t = std::thread::spawn(move || {
            let mut got = Vec::new();
            read_loop::<Down>(b, |m| {
                got.push(m);
                true
            })
            .expect("read");
            got
        });
        for id in 0..100 {
            tx.send(&Down::AbortDone { id, status: 0 });
        }
        drop(tx);
        let got = t.join().expect("join");
        assert_eq!(got.len(), 100);
        assert_eq!(got[99], Down::AbortDone { id: 99, status: 0 });
    }
}
