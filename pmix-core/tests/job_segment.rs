//! Per-process job data published once per node: the server writes a namespace's
//! process table into a file its clients map read-only (`store::procs`). One test per
//! binary: the threshold comes from the environment, read when the server starts.

mod util;

use pmix_core::client::GetOpts;
use pmix_core::store::keys;
use pmix_core::{Key, ProcId, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use util::*;

fn key(s: &str) -> Key {
    Key::new(s).unwrap()
}

fn wait_gone(p: &std::path::Path) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if !p.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn clients_map_the_segment_fall_back_to_a_copy_and_the_file_goes_with_the_namespace() {
    // Publish every non-empty table (the default keeps small ones inline). Set before
    // any thread of this binary starts.
    std::env::set_var("PMIX_RS_JOB_SEGMENT_MIN", "0");
    let host = Arc::new(RecordingHost::default());
    let server = server_with_job("seg", "job", 3, host.clone());
    let seg = server.rendezvous_dir().join("jobdata.0");
    assert!(seg.exists(), "the table is published at {}", seg.display());
    let opts = GetOpts::default();
    let c0 = connect(&server, "job", 0).unwrap();
    let peer = ProcId::new(ns("job"), 2);
    let lrank = key(keys::LOCAL_RANK);
    assert_eq!(
        c0.get(Some(&peer), Some(&lrank), &opts).unwrap(),
        Value::Uint16(2)
    );
    assert_eq!(c0.get(None, Some(&lrank), &opts).unwrap(), Value::Uint16(0));

    // A second namespace whose segment is damaged after publication: its client warns,
    // asks for an inline copy and answers the same.
    let infos = (0..2)
        .map(|r| {
            proc_data(
                r,
                vec![info(keys::LOCAL_RANK, Value::Uint16(10 + r as u16))],
            )
        })
        .collect();
    server.register_nspace(&ns("job2"), 2, infos).unwrap();
    server
        .register_client(&ProcId::new(ns("job2"), 1), pmix_core::sys::euid(), 0)
        .unwrap();
    let seg2 = server.rendezvous_dir().join("jobdata.1");
    let len = std::fs::metadata(&seg2).unwrap().len() as usize;
    std::fs::remove_file(&seg2).unwrap();
    std::fs::write(&seg2, vec![0xa5u8; len]).unwrap();
    let c1 = connect(&server, "job2", 1).unwrap();
    assert_eq!(
        c1.get(None, Some(&lrank), &opts).unwrap(),
        Value::Uint16(11)
    );
    let p0 = ProcId::new(ns("job2"), 0);
    assert_eq!(
        c1.get(Some(&p0), Some(&lrank), &opts).unwrap(),
        Value::Uint16(10)
    );
    c1.finalize().unwrap();

    // Deregistration removes the file; a client that mapped it keeps reading.
    server.deregister_nspace(&ns("job"));
    assert!(wait_gone(&seg), "{} removed", seg.display());
    let p1 = ProcId::new(ns("job"), 1);
    assert_eq!(
        c0.get(Some(&p1), Some(&lrank), &opts).unwrap(),
        Value::Uint16(1)
    );
    c0.finalize().unwrap();
    let dir = server.rendezvous_dir().to_path_buf();
    server.finalize();
    assert!(
        wait_gone(&dir),
        "finalize removes the directory and every segment"
    );
}
