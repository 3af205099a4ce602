//! The host upcalls a node daemon forwards to the front end (publish, lookup, unpublish,
//! log, job control, spawn, output pulls, group construct and destruct, process
//! monitors of ranks on other nodes) and their answers, as they travel
//! on the link ([`Fwd`] up in [`Up::Upcall`](super::link::Up::Upcall), [`Answer`] down
//! in [`Down::UpcallDone`](super::link::Down::UpcallDone)).
//!
//! The daemon turns a [`HostCall`] into a [`Fwd`] and keeps the call's completion
//! ([`split`]); the front end turns the [`Fwd`] back into a [`HostCall`] for pmixrun's
//! own host ([`Fwd::into_call`], the one implementation a one-node job uses too), whose
//! completion becomes the [`Answer`] sent back.

use pmix_core::codec::{decode_seq, encode_seq, Decoder, Wire};
use pmix_core::server::{HostCall, HostDone};
use pmix_core::{App, Error, Info, Nspace, Pdata, ProcId, Result};

/// A forwarded upcall.
#[derive(Debug, Clone, PartialEq)]
pub enum Fwd {
    /// `HostCall::Publish`.
    Publish {
        /// The publisher.
        proc_: ProcId,
        /// Data and directives.
        info: Vec<Info>,
    },
    /// `HostCall::Lookup`.
    Lookup {
        /// The requester.
        proc_: ProcId,
        /// Keys wanted.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `HostCall::Unpublish`.
    Unpublish {
        /// The requester.
        proc_: ProcId,
        /// Keys to remove.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `HostCall::Log`.
    Log {
        /// The requester.
        proc_: ProcId,
        /// What to log.
        data: Vec<Info>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `HostCall::JobControl`.
    JobControl {
        /// The requester.
        proc_: ProcId,
        /// Targets.
        targets: Vec<ProcId>,
        /// Directives.
        directives: Vec<Info>,
    },
    /// `HostCall::Spawn`: the launcher starts the job (on the requester's node).
    Spawn {
        /// Who spawns.
        requester: ProcId,
        /// Job-level directives.
        job_info: Vec<Info>,
        /// Applications.
        apps: Vec<App>,
    },
    /// `HostCall::IofPull`: this node's server wants the output of `procs`.
    IofPull {
        /// Sources.
        procs: Vec<ProcId>,
        /// Channels.
        channels: u16,
        /// Directives (`PMIX_IOF_STOP` ends a pull).
        directives: Vec<Info>,
    },
    /// `HostCall::Group`: collected by the front end over the members' nodes.
    Group {
        /// Construct (true) or destruct.
        construct: bool,
        /// Group name.
        grp: String,
        /// Members, sorted.
        procs: Vec<ProcId>,
        /// Directives (with this server's `PMIX_GROUP_ENDPT_DATA` blob).
        info: Vec<Info>,
    },
    /// `HostCall::Monitor`: the front end asks the targets' nodes to run it (or
    /// cancels what they run).
    Monitor {
        /// The requester.
        proc_: ProcId,
        /// What to monitor (boxed: the variant stays small).
        monitor: Box<Info>,
        /// The status code of its updates.
        error: i32,
        /// Directives.
        directives: Vec<Info>,
    },
}

/// What a forwarded upcall produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Nothing (publish, unpublish, log).
    Unit,
    /// A lookup's data.
    Pdata(Vec<Pdata>),
    /// Results (job control, group).
    Infos(Vec<Info>),
    /// A spawned job's namespace.
    Nspace(Nspace),
}

/// The completion of an upcall a daemon forwarded.
pub type Finish = Box<dyn FnOnce(Result<Answer>) + Send + 'static>;

fn wrong() -> Error {
    Error::new(
        pmix_sys::PMIX_ERR_UNPACK_FAILURE,
        "the front end answered a forwarded upcall with the wrong kind of result",
    )
}

fn unit(done: HostDone<()>) -> Finish {
    Box::new(move |r| done(r.map(|_| ())))
}

fn infos(done: HostDone<Vec<Info>>) -> Finish {
    Box::new(move |r| {
        done(r.and_then(|a| match a {
            Answer::Infos(v) => Ok(v),
            Answer::Unit => Ok(Vec::new()),
            _ => Err(wrong()),
        }))
    })
}

/// The forwardable part of `c` and its completion, or the call back when a daemon does
/// not forward it.
pub fn split(c: HostCall) -> std::result::Result<(Fwd, Finish), Box<HostCall>> {
    Ok(match c {
        HostCall::Publish { proc_, info, done } => (Fwd::Publish { proc_, info }, unit(done)),
        HostCall::Lookup {
            proc_,
            keys,
            info,
            done,
        } => (
            Fwd::Lookup { proc_, keys, info },
            Box::new(move |r: Result<Answer>| {
                done(r.and_then(|a| match a {
                    Answer::Pdata(v) => Ok(v),
                    _ => Err(wrong()),
                }))
            }),
        ),
        HostCall::Unpublish {
            proc_,
            keys,
            info,
            done,
        } => (Fwd::Unpublish { proc_, keys, info }, unit(done)),
        HostCall::Log {
            proc_,
            data,
            directives,
            done,
        } => (
            Fwd::Log {
                proc_,
                data,
                directives,
            },
            unit(done),
        ),
        HostCall::JobControl {
            proc_,
            targets,
            directives,
            done,
        } => (
            Fwd::JobControl {
                proc_,
                targets,
                directives,
            },
            infos(done),
        ),
        HostCall::Spawn {
            requester,
            job_info,
            apps,
            done,
        } => (
            Fwd::Spawn {
                requester,
                job_info,
                apps,
            },
            Box::new(move |r: Result<Answer>| {
                done(r.and_then(|a| match a {
                    Answer::Nspace(n) => Ok(n),
                    _ => Err(wrong()),
                }))
            }),
        ),
        HostCall::IofPull {
            procs,
            channels,
            directives,
            done,
        } => (
            Fwd::IofPull {
                procs,
                channels,
                directives,
            },
            unit(done),
        ),
        HostCall::Group {
            construct,
            grp,
            procs,
            info,
            done,
        } => (
            Fwd::Group {
                construct,
                grp,
                procs,
                info,
            },
            infos(done),
        ),
        other => return split_monitor(other),
    })
}

/// [`split`] of a monitor request (the call back for any other).
fn split_monitor(c: HostCall) -> std::result::Result<(Fwd, Finish), Box<HostCall>> {
    match c {
        HostCall::Monitor {
            proc_,
            monitor,
            error,
            directives,
            done,
        } => Ok((
            Fwd::Monitor {
                proc_,
                monitor: Box::new(monitor),
                error,
                directives,
            },
            infos(done),
        )),
        other => Err(Box::new(other)),
    }
}

impl Fwd {
    /// The call for pmixrun's host, completing with `finish`. A group operation or a
    /// monitor is served by the front end itself and never becomes a call: it comes
    /// back.
    pub fn into_call(self, finish: Finish) -> std::result::Result<HostCall, (Fwd, Finish)> {
        Ok(match self {
            Fwd::Publish { proc_, info } => HostCall::Publish {
                proc_,
                info,
                done: Box::new(move |r| finish(r.map(|()| Answer::Unit))),
            },
            Fwd::Unpublish { proc_, keys, info } => HostCall::Unpublish {
                proc_,
                keys,
                info,
                done: Box::new(move |r| finish(r.map(|()| Answer::Unit))),
            },
            Fwd::Log {
                proc_,
                data,
                directives,
            } => HostCall::Log {
                proc_,
                data,
                directives,
                done: Box::new(move |r| finish(r.map(|()| Answer::Unit))),
            },
            Fwd::Lookup { proc_, keys, info } => HostCall::Lookup {
                proc_,
                keys,
                info,
                done: Box::new(move |r| finish(r.map(Answer::Pdata))),
            },
            Fwd::JobControl {
                proc_,
                targets,
                directives,
            } => HostCall::JobControl {
                proc_,
                targets,
                directives,
                done: Box::new(move |r| finish(r.map(Answer::Infos))),
            },
            Fwd::Spawn {
                requester,
                job_info,
                apps,
            } => HostCall::Spawn {
                requester,
                job_info,
                apps,
                done: Box::new(move |r| finish(r.map(Answer::Nspace))),
            },
            Fwd::IofPull {
                procs,
                channels,
                directives,
            } => HostCall::IofPull {
                procs,
                channels,
                directives,
                done: Box::new(move |r| finish(r.map(|()| Answer::Unit))),
            },
            g @ (Fwd::Group { .. } | Fwd::Monitor { .. }) => return Err((g, finish)),
        })
    }
}

struct Keys(Vec<String>);

impl Wire for Keys {
    fn encode(&self, out: &mut Vec<u8>) {
        encode_seq(&self.0, out);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        decode_seq(d).map(Keys)
    }
}

fn keys(k: &[String], out: &mut Vec<u8>) {
    encode_seq(k, out);
}

impl Wire for Fwd {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Fwd::Publish { proc_, info } => {
                1u8.encode(out);
                proc_.encode(out);
                info.encode(out);
            }
            Fwd::Lookup {
                proc_,
                keys: k,
                info,
            } => {
                2u8.encode(out);
                proc_.encode(out);
                keys(k, out);
                info.encode(out);
            }
            Fwd::Unpublish {
                proc_,
                keys: k,
                info,
            } => {
                3u8.encode(out);
                proc_.encode(out);
                keys(k, out);
                info.encode(out);
            }
            Fwd::Log {
                proc_,
                data,
                directives,
            } => {
                4u8.encode(out);
                proc_.encode(out);
                data.encode(out);
                directives.encode(out);
            }
            Fwd::JobControl {
                proc_,
                targets,
                directives,
            } => {
                5u8.encode(out);
                proc_.encode(out);
                targets.encode(out);
                directives.encode(out);
            }
            Fwd::Spawn {
                requester,
                job_info,
                apps,
            } => {
                7u8.encode(out);
                requester.encode(out);
                job_info.encode(out);
                encode_seq(apps, out);
            }
            Fwd::IofPull {
                procs,
                channels,
                directives,
            } => {
                8u8.encode(out);
                procs.encode(out);
                channels.encode(out);
                directives.encode(out);
            }
            Fwd::Group {
                construct,
                grp,
                procs,
                info,
            } => {
                6u8.encode(out);
                construct.encode(out);
                grp.encode(out);
                procs.encode(out);
                info.encode(out);
            }
            Fwd::Monitor {
                proc_,
                monitor,
                error,
                directives,
            } => {
                9u8.encode(out);
                proc_.encode(out);
                monitor.encode(out);
                error.encode(out);
                directives.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => Fwd::Publish {
                proc_: ProcId::decode(d)?,
                info: Vec::decode(d)?,
            },
            2 => Fwd::Lookup {
                proc_: ProcId::decode(d)?,
                keys: Keys::decode(d)?.0,
                info: Vec::decode(d)?,
            },
            3 => Fwd::Unpublish {
                proc_: ProcId::decode(d)?,
                keys: Keys::decode(d)?.0,
                info: Vec::decode(d)?,
            },
            4 => Fwd::Log {
                proc_: ProcId::decode(d)?,
                data: Vec::decode(d)?,
                directives: Vec::decode(d)?,
            },
            5 => Fwd::JobControl {
                proc_: ProcId::decode(d)?,
                targets: Vec::decode(d)?,
                directives: Vec::decode(d)?,
            },
            6 => Fwd::Group {
                construct: bool::decode(d)?,
                grp: String::decode(d)?,
                procs: Vec::decode(d)?,
                info: Vec::decode(d)?,
            },
            7 => Fwd::Spawn {
                requester: ProcId::decode(d)?,
                job_info: Vec::decode(d)?,
                apps: decode_seq(d)?,
            },
            8 => Fwd::IofPull {
                procs: Vec::decode(d)?,
                channels: u16::decode(d)?,
                directives: Vec::decode(d)?,
            },
            9 => Fwd::Monitor {
                proc_: ProcId::decode(d)?,
                monitor: Box::new(Info::decode(d)?),
                error: i32::decode(d)?,
                directives: Vec::decode(d)?,
            },
            t => return Err(Error::unpack(format!("unknown forwarded upcall {t}"))),
        })
    }
}

impl Wire for Answer {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Answer::Unit => 1u8.encode(out),
            Answer::Pdata(v) => {
                2u8.encode(out);
                encode_seq(v, out);
            }
            Answer::Infos(v) => {
                3u8.encode(out);
                v.encode(out);
            }
            Answer::Nspace(n) => {
                4u8.encode(out);
                n.encode(out);
            }
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self> {
        Ok(match u8::decode(d)? {
            1 => Answer::Unit,
            2 => Answer::Pdata(decode_seq(d)?),
            3 => Answer::Infos(Vec::decode(d)?),
            4 => Answer::Nspace(Nspace::decode(d)?),
            t => return Err(Error::unpack(format!("unknown upcall answer {t}"))),
        })
    }
}
