//! The pmixrun binary as a user meets it, for what needs no PMIx server: help, version,
//! usage errors, programs that cannot be found, the placement of plain programs on
//! simulated nodes. (PMIx jobs are tested by tests-c/runtime/run.sh and
//! tests-c/multinode/run.sh.)

use std::process::{Command, Output};

fn pmixrun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(args)
        .output()
        .expect("run pmixrun")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_documents_every_option_and_exits_0() {
    let o = pmixrun(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    for opt in [
        "-n N",
        "--tag-output",
        "--timeout",
        "-x VAR",
        "--nodes",
        "--wdir",
    ] {
        assert!(out.contains(opt), "help lacks {opt}");
    }
}

#[test]
fn version() {
    let o = pmixrun(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).starts_with("pmixrun (pmix-rs) "));
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    for args in [
        &[][..],
        &["-n", "0", "true"],
        &["--bogus", "true"],
        &["-n", "2"],
    ] {
        let o = pmixrun(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("pmixrun --help"), "{args:?}");
    }
}

#[test]
fn several_nodes_place_the_ranks_in_blocks() {
    let o = pmixrun(&[
        "--timeout",
        "30",
        "--nodes",
        "2",
        "-n",
        "3",
        "sh",
        "-c",
        "echo \"rank $PMIX_RANK on $PMIX_HOSTNAME\"",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for line in ["rank 0 on node0", "rank 1 on node0", "rank 2 on node1"] {
        assert!(out.contains(line), "{line:?} missing in {out:?}");
    }
    let o = pmixrun(&["--nodes", "3", "-n", "2", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("needs at least 3 processes"));
}

#[test]
fn missing_programs_exit_127_before_anything_starts() {
    let o = pmixrun(&["-n", "2", "no-such-program-xyz"]);
    assert_eq!(o.status.code(), Some(127));
    assert!(text(&o.stderr).contains("no-such-program-xyz: command not found"));
    let o = pmixrun(&["-n", "1", "true", ":", "-n", "1", "./no/such/file"]);
    assert_eq!(o.status.code(), Some(127));
    assert!(text(&o.stderr).contains("./no/such/file: not an executable file"));
}
