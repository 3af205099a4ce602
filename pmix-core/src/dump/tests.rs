use super::*;

#[test]
fn the_ring_keeps_the_last_calls_of_each_thread_in_order() {
    let t0 = Instant::now();
    let mut c = Calls::default();
    for i in 0..(RING as u64 + 3) {
        c.enter(11, "main", i, &format!("PMIx_Call{}", i), t0);
        c.exit(11, i, t0 + Duration::from_millis(1500));
    }
    c.enter(11, "main", 100, "PMIx_Fence", t0 + Duration::from_secs(1));
    c.enter(12, "worker", 101, "PMIx_Get", t0);
    assert_eq!(
        c.running(),
        vec![(11, "PMIx_Fence".to_string()), (12, "PMIx_Get".to_string())]
    );
    let mut out = String::new();
    c.render(t0 + Duration::from_secs(3), &mut out);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "calls (last 8 blocking calls per thread):");
    assert_eq!(lines[1], "  thread 11 (main):");
    // RING + 4 calls were made on thread 11: the first 4 fell out.
    assert_eq!(
        lines[2],
        "    PMIx_Call4 started 3.000 s ago, returned after 1.500 s"
    );
    assert_eq!(
        lines[1 + RING],
        "    PMIx_Fence started 2.000 s ago, RUNNING (blocked)"
    );
    assert_eq!(lines[2 + RING], "  thread 12 (worker):");
    assert_eq!(
        lines[3 + RING],
        "    PMIx_Get started 3.000 s ago, RUNNING (blocked)"
    );
    assert_eq!(lines.len(), 4 + RING);
}

#[test]
fn a_return_after_the_call_fell_out_of_the_ring_is_ignored() {
    let t0 = Instant::now();
    let mut c = Calls::default();
    c.enter(1, "t", 1, "PMIx_Fence", t0);
    for i in 2..(RING as u64 + 2) {
        c.enter(1, "t", i, "PMIx_Get", t0);
    }
    c.exit(1, 1, t0);
    c.exit(99, 5, t0);
    assert_eq!(c.running().len(), RING);
}

#[test]
fn long_names_are_cut_on_a_character_boundary() {
    let t0 = Instant::now();
    let mut c = Calls::default();
    let name = format!("PMIx_{}é", "x".repeat(NAME_MAX - 6));
    c.enter(1, "t", 1, &name, t0);
    let r = c.running();
    assert_eq!(r[0].1, format!("PMIx_{}", "x".repeat(NAME_MAX - 6)));
}

#[test]
fn the_least_recently_active_thread_makes_room() {
    let t0 = Instant::now();
    let mut c = Calls::default();
    for t in 0..THREADS as u64 {
        c.enter(t, "t", t, "PMIx_Fence", t0 + Duration::from_millis(t + 1));
    }
    c.enter(1000, "new", 1000, "PMIx_Get", t0 + Duration::from_secs(5));
    let tids: Vec<u64> = c.running().iter().map(|r| r.0).collect();
    assert_eq!(tids.len(), THREADS);
    assert!(!tids.contains(&0), "thread 0 was the least recently active");
    assert!(tids.contains(&1000));
}

#[test]
fn signal_names() {
    assert_eq!(parse_signal("USR2"), Some(libc::SIGUSR2));
    assert_eq!(parse_signal("SIGUSR1"), Some(libc::SIGUSR1));
    assert_eq!(parse_signal("urg"), Some(libc::SIGURG));
    assert_eq!(parse_signal("12"), Some(12));
    assert_eq!(parse_signal("RTMIN+2"), Some(crate::sys::sigrtmin() + 2));
    assert_eq!(parse_signal("KILL"), None);
    assert_eq!(parse_signal("9"), None);
    assert_eq!(parse_signal("RTMIN+99"), None);
    assert_eq!(parse_signal("bogus"), None);
    assert_eq!(parse_signal(""), None);
}

#[test]
fn the_dump_has_identity_calls_and_an_end() {
    let m = enter("PMIx_Test_call");
    let d = render();
    drop(m);
    assert!(
        d.starts_with(&format!(
            "pmix-rs debug dump of pid {} (",
            std::process::id()
        )),
        "{}",
        d
    );
    assert!(d.contains("PMIx_Test_call started"), "{}", d);
    assert!(d.contains("RUNNING (blocked)"), "{}", d);
    assert!(d.ends_with("end of dump\n"), "{}", d);
}
