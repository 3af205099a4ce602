//! Per-process job data published once per node: the server writes a namespace's
//! process table into a sealed memory file and hands it to each local client with its
//! Welcome; the client maps it read-only (`store::procs`). One test per binary: the
//! threshold comes from the environment, read when the server starts.

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

/// This process's descriptors that are job-data segments (`memfd:pmix-jobdata.<n>`).
fn segments() -> Vec<(String, std::path::PathBuf)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        if let Ok(t) = std::fs::read_link(e.path()) {
            let t = t.to_string_lossy().into_owned();
            if t.starts_with("/memfd:pmix-jobdata.") {
                v.push((t, e.path()));
            }
        }
    }
    v
}

fn wait_until(f: impl Fn() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn clients_map_the_sealed_segment_nobody_can_change_and_it_goes_with_the_namespace() {
    // Publish every non-empty table (the default keeps small ones inline). Set before
    // any thread of this binary starts.
    std::env::set_var("PMIX_RS_JOB_SEGMENT_MIN", "0");
    let host = Arc::new(RecordingHost::default());
    let server = server_with_job("seg", "job", 3, host.clone());
    let segs = segments();
    assert_eq!(segs.len(), 1, "one sealed segment: {:?}", segs);
    assert!(
        std::fs::read_dir(server.rendezvous_dir())
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with("jobdata")),
        "no segment file in the rendezvous directory"
    );
    let opts = GetOpts::default();
    let c0 = connect(&server, "job", 0).unwrap();
    let peer = ProcId::new(ns("job"), 2);
    let lrank = key(keys::LOCAL_RANK);
    assert_eq!(
        c0.get(Some(&peer), Some(&lrank), &opts).unwrap(),
        Value::Uint16(2)
    );
    // The client closed the descriptor it received once it had mapped the segment.
    assert!(wait_until(|| segments().len() == 1), "{:?}", segments());

    // Anyone of this user opening the segment through /proc (as another process would
    // through /proc/<server>/fd/N) can neither truncate, grow nor rewrite it.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&segs[0].1)
        .unwrap();
    let eperm = |r: std::io::Result<()>| r.unwrap_err().raw_os_error() == Some(libc::EPERM);
    assert!(eperm(f.set_len(0)), "truncate refused");
    assert!(eperm(f.set_len(1 << 20)), "grow refused");
    assert!(
        eperm(std::io::Write::write_all(&mut &f, &[0xa5; 64])),
        "write refused"
    );
    drop(f);
    assert_eq!(c0.get(None, Some(&lrank), &opts).unwrap(), Value::Uint16(0));
    let p1 = ProcId::new(ns("job"), 1);
    assert_eq!(
        c0.get(Some(&p1), Some(&lrank), &opts).unwrap(),
        Value::Uint16(1)
    );

    // A second namespace gets its own segment; its client reads it the same way.
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
    assert!(wait_until(|| segments().len() == 2), "{:?}", segments());
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

    // Deregistration frees the server's segment; a client that mapped it keeps reading.
    server.deregister_nspace(&ns("job"));
    assert!(wait_until(|| segments().len() == 1), "{:?}", segments());
    assert_eq!(
        c0.get(Some(&p1), Some(&lrank), &opts).unwrap(),
        Value::Uint16(1)
    );
    c0.finalize().unwrap();
    server.finalize();
    assert!(wait_until(|| segments().is_empty()), "{:?}", segments());
}
