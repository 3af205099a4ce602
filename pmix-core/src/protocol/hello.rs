//! The handshake: [`Hello`] and [`Welcome`], with the job data a Welcome carries.

use crate::error::{Error, Result};
use crate::store::{JobData, NodeData, ProcTable};
use crate::value::{Info, Nspace, ProcId};
use crate::wire::{decode_seq, encode_seq, Decoder, Wire};

const HELLO_MAGIC: u32 = u32::from_le_bytes(*b"PMXR");

/// The client's first frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    /// Protocol version the client speaks.
    pub version: u32,
    /// Who the client says it is.
    pub proc_: ProcId,
    /// Its pid.
    pub pid: i32,
    /// Its effective uid (the server trusts `SO_PEERCRED`, not this).
    pub uid: u32,
    /// Its effective gid.
    pub gid: u32,
    /// What kind of peer it is.
    pub kind: PeerKind,
}

/// Who is knocking: a client the host registered, or a tool (`PMIx_tool_init`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PeerKind {
    /// A registered client; [`Hello::proc_`] is its identity.
    #[default]
    Client,
    /// A tool that chose its own identity ([`Hello::proc_`]).
    ToolNamed,
    /// A tool asking the server (its host) for an identity; [`Hello::proc_`] is only a
    /// placeholder.
    ToolAssign,
}

impl Wire for PeerKind {
    fn encode(&self, out: &mut Vec<u8>) {
        let b: u8 = match self {
            PeerKind::Client => 0,
            PeerKind::ToolNamed => 1,
            PeerKind::ToolAssign => 2,
        };
        b.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            0 => PeerKind::Client,
            1 => PeerKind::ToolNamed,
            2 => PeerKind::ToolAssign,
            t => return Err(Error::unpack(format!("unknown peer kind {}", t))),
        })
    }
}

impl Wire for Hello {
    fn encode(&self, out: &mut Vec<u8>) {
        HELLO_MAGIC.encode(out);
        self.version.encode(out);
        self.proc_.encode(out);
        self.pid.encode(out);
        self.uid.encode(out);
        self.gid.encode(out);
        self.kind.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        if u32::decode(d)? != HELLO_MAGIC {
            return Err(Error::unpack("not a pmix-rs handshake"));
        }
        Ok(Hello {
            version: u32::decode(d)?,
            proc_: ProcId::decode(d)?,
            pid: i32::decode(d)?,
            uid: u32::decode(d)?,
            gid: u32::decode(d)?,
            kind: PeerKind::decode(d)?,
        })
    }
}

/// The server's answer to [`Hello`].
#[derive(Debug, Clone, PartialEq)]
pub enum Welcome {
    /// Connection accepted: the server's id and the job data of the client's namespace.
    Accepted {
        /// The server's own id.
        server: ProcId,
        /// The peer's identity (a tool's may have been assigned by the host).
        you: ProcId,
        /// Job data (the client's namespace first).
        jobs: Vec<JobData>,
    },
    /// Connection refused (the server closes it after this frame).
    Refused {
        /// Why, as a status.
        status: i32,
        /// Why, as text.
        reason: String,
    },
}

impl Wire for Welcome {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Welcome::Accepted { server, you, jobs } => {
                0u8.encode(out);
                server.encode(out);
                you.encode(out);
                encode_seq(jobs, out);
            }
            Welcome::Refused { status, reason } => {
                1u8.encode(out);
                status.encode(out);
                reason.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            0 => {
                let w = Welcome::Accepted {
                    server: ProcId::decode(d)?,
                    you: ProcId::decode(d)?,
                    jobs: decode_seq(d)?,
                };
                // A same-node fence area's descriptor index may follow (see
                // [`welcome_fence_area`]); readers that do not use it skip it.
                if d.remaining() == 8 {
                    d.take(8)?;
                }
                w
            }
            1 => Welcome::Refused {
                status: i32::decode(d)?,
                reason: String::decode(d)?,
            },
            t => return Err(Error::unpack(format!("unknown welcome tag {}", t))),
        })
    }
}

/// The frame body of `Welcome::Accepted { server, you, jobs }` encoded from borrowed job data:
/// the server sends every client of a namespace its job data, and copying it into an
/// owned `Welcome` first (then dropping it) was most of the handshake's cost.
///
/// A per-process table published as a sealed segment is named by the index of its
/// descriptor, which this adds to `fds`: they must travel with the frame (`SCM_RIGHTS`).
/// A client that does not receive them asks for inline copies (`Req::JobData`).
pub fn encode_welcome_accepted(
    server: &ProcId,
    you: &ProcId,
    jobs: &[&JobData],
    fds: &mut Vec<std::sync::Arc<std::os::fd::OwnedFd>>,
) -> Vec<u8> {
    let mut out = Vec::new();
    0u8.encode(&mut out);
    server.encode(&mut out);
    you.encode(&mut out);
    (jobs.len() as u32).encode(&mut out);
    for j in jobs {
        encode_job(j, &mut out, Some(&mut *fds));
    }
    out
}

/// The mark after a Welcome's fence-area index ("FNCA").
const FENCE_AREA_MARK: u32 = 0x464e_4341;

/// Append to an accepting Welcome the index (among the descriptors sent with it) of the
/// client's namespace's same-node fence area ([`crate::shm`]): the index and a mark, 8
/// bytes that readers of the Welcome which do not use them skip.
pub fn append_fence_area(body: &mut Vec<u8>, index: u32) {
    index.encode(body);
    FENCE_AREA_MARK.encode(body);
}

/// The fence-area descriptor index an accepting Welcome ends with, if any (a wrong
/// index only means the descriptor there is refused: [`crate::shm::FenceArea::attach`]).
pub fn welcome_fence_area(body: &[u8]) -> Option<u32> {
    let tail = body.get(body.len().checked_sub(8)?..)?;
    let mut d = Decoder::new(tail);
    let index = u32::decode(&mut d).ok()?;
    (u32::decode(&mut d).ok()? == FENCE_AREA_MARK).then_some(index)
}

/// A [`JobData`]'s encoding; `local`: for a client on this node, whose per-process table
/// may be handed over as its shared segment (a descriptor added there) instead of
/// carried inline.
fn encode_job(
    j: &JobData,
    out: &mut Vec<u8>,
    local: Option<&mut Vec<std::sync::Arc<std::os::fd::OwnedFd>>>,
) {
    j.nspace.encode(out);
    j.encode_job_level(out, local.is_some());
    (j.apps.len() as u32).encode(out);
    for (n, l) in &j.apps {
        n.encode(out);
        l.encode(out);
    }
    encode_seq(&j.nodes, out);
    if let Some(fds) = local {
        j.procs.encode_local(out, fds);
    } else {
        j.procs.encode(out);
    }
}

impl Wire for NodeData {
    fn encode(&self, out: &mut Vec<u8>) {
        self.id.encode(out);
        self.hostname.encode(out);
        self.info.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(NodeData {
            id: Option::decode(d)?,
            hostname: Option::decode(d)?,
            info: Vec::decode(d)?,
        })
    }
}

/// A rank with its infos (per-app and per-process sections of [`JobData`]).
struct Section(u32, Vec<Info>);

impl Wire for Section {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(Section(u32::decode(d)?, Vec::decode(d)?))
    }
}

impl Wire for JobData {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_job(self, out, None);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        let nspace = Nspace::decode(d)?;
        let job = Vec::decode(d)?;
        let apps = decode_seq::<Section>(d)?
            .into_iter()
            .map(|s| (s.0, s.1))
            .collect();
        let nodes = decode_seq(d)?;
        let procs = ProcTable::decode(d)?;
        Ok(JobData {
            nspace,
            job,
            apps,
            nodes,
            procs,
        })
    }
}
