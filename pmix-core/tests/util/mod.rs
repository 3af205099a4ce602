//! Shared helpers for the runtime integration tests: a test host, job registration and
//! client connection in one process.
#![allow(dead_code)]

use pmix_core::client::{parse_uri, Client, ClientConfig};
use pmix_core::server::{Host, HostCall, HostReply, Server, ServerConfig};
use pmix_core::store::keys;
use pmix_core::{DataArray, Info, Nspace, ProcId, Value};
use pmix_sys as sys;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A host that records what the server told it.
#[derive(Default)]
pub struct RecordingHost {
    pub events: Mutex<Vec<String>>,
}

impl Host for RecordingHost {
    fn call(&self, call: HostCall) -> pmix_core::Result<HostReply> {
        let what = match &call {
            HostCall::ClientFinalized { proc_, .. } => format!("finalized {}", proc_),
            HostCall::Abort {
                proc_, status, msg, ..
            } => format!("abort {} {} {}", proc_, status, msg),
            _ => return call.unsupported(),
        };
        self.events.lock().unwrap().push(what);
        Ok(HostReply::Completed)
    }
    fn client_lost(&self, p: &ProcId) {
        self.events.lock().unwrap().push(format!("lost {}", p));
    }
}

pub fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmixrs-test-{}-{}", name, std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn ns(s: &str) -> Nspace {
    Nspace::new(s).unwrap()
}

pub fn info(k: &str, v: Value) -> Info {
    Info::new(k, v).unwrap()
}

pub fn proc_data(rank: u32, extra: Vec<Info>) -> Info {
    let mut items = vec![info(keys::RANK, Value::Rank(rank))];
    items.extend(extra);
    info(
        keys::PROC_DATA,
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: items
                .into_iter()
                .map(|i| Value::Info(Box::new(i)))
                .collect(),
        })),
    )
}

/// Start a server and register `nprocs` local clients of namespace `job`.
pub fn server_with_job(name: &str, job: &str, nprocs: u32, host: Arc<dyn Host>) -> Server {
    let cfg = ServerConfig {
        id: ProcId::new(ns(&format!("srv-{}", name)), 0),
        tmpdir: Some(tmpdir(name)),
        info: vec![],
    };
    let s = Server::start(cfg, host).unwrap();
    let mut infos = vec![
        info(keys::JOB_SIZE, Value::Uint32(nprocs)),
        info("test.custom", Value::Int16(-7)),
    ];
    for r in 0..nprocs {
        infos.push(proc_data(
            r,
            vec![info(keys::LOCAL_RANK, Value::Uint16(r as u16))],
        ));
    }
    s.register_nspace(&ns(job), nprocs, infos).unwrap();
    for r in 0..nprocs {
        s.register_client(&ProcId::new(ns(job), r), pmix_core::sys::euid(), 0)
            .unwrap();
    }
    s
}

pub fn connect(server: &Server, job: &str, rank: u32) -> pmix_core::Result<Client> {
    Client::connect(ClientConfig {
        server: Some((
            ProcId::new(ns(job), rank),
            parse_uri(&server.uri()).unwrap().into(),
        )),
        ..Default::default()
    })
}
