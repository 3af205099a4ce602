//! One sample of what the kernel says about a process, the node, its disks and its
//! network interfaces, as the `PMIX_*_RESOURCE_USAGE` info arrays OpenPMIx's servers
//! answer with (its `pstat` readers): read from `/proc`, parsed by the pure functions
//! below (unit-tested on fixed text). A file that cannot be read yields nothing (a
//! process that exited between two samples is ordinary, not an error).

use crate::value::{DataArray, Info, ProcId, Value};
use pmix_sys as sys;
use pmix_sys::attrs::keys as ak;

/// Which fields a request wants (`None`: every field the reader knows).
pub(super) type Fields = Option<Vec<String>>;

fn wanted(fields: &Fields, key: &str) -> bool {
    fields.as_ref().is_none_or(|f| f.iter().any(|k| k == key))
}

fn push(out: &mut Vec<Info>, key: &str, v: Value) {
    if let Ok(i) = Info::new(key, v) {
        out.push(i);
    }
}

fn push_if(out: &mut Vec<Info>, fields: &Fields, key: &str, v: Value) {
    if wanted(fields, key) {
        push(out, key, v);
    }
}

/// Seconds since the epoch (`PMIX_*_SAMPLE_TIME`, a `time_t`).
pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `info` as one `PMIX_DATA_ARRAY` of infos under `key`.
pub(super) fn array_of(key: &str, info: Vec<Info>) -> Option<Info> {
    Info::new(
        key,
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INFO,
            items: info.into_iter().map(|i| Value::Info(Box::new(i))).collect(),
        })),
    )
    .ok()
}

/// A `kB` figure of `/proc` as megabytes (the unit OpenPMIx reports sizes in).
fn kb_to_mb(kb: u64) -> f32 {
    kb as f32 / 1024.0
}

/// `/proc/<pid>/stat` and `/proc/<pid>/status` of `proc_` (pid `pid`), as the infos of
/// one `PMIX_PROC_RESOURCE_USAGE` entry; `None` if the process is gone.
pub(super) fn proc_usage(
    proc_: &ProcId,
    pid: i32,
    host: &str,
    fields: &Fields,
) -> Option<Vec<Info>> {
    // Only the files the asked-for fields come from are read (`stat` always: it tells
    // whether the process is still there).
    let read = |path: String, keys: &[&str]| {
        if keys.iter().any(|k| wanted(fields, k)) {
            std::fs::read_to_string(path).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let status = read(
        format!("/proc/{pid}/status"),
        &[
            ak::PMIX_PROC_PEAK_VSIZE,
            ak::PMIX_PROC_VSIZE,
            ak::PMIX_PROC_RSS,
        ],
    );
    let uptime = read("/proc/uptime".to_string(), &[ak::PMIX_PROC_PERCENT_CPU]);
    let mut out = Vec::new();
    push(&mut out, ak::PMIX_PROCID, Value::Proc(Some(proc_.clone())));
    push(&mut out, ak::PMIX_PROC_PID, Value::Pid(pid));
    push(&mut out, ak::PMIX_HOSTNAME, Value::string(host));
    parse_stat(&stat, &uptime, fields, &mut out)?;
    parse_status(&status, fields, &mut out);
    if wanted(fields, ak::PMIX_PROC_PSS) {
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"));
        parse_pss(&rollup.unwrap_or_default(), &mut out);
    }
    push(&mut out, ak::PMIX_PROC_SAMPLE_TIME, Value::Time(now()));
    Some(out)
}

/// Clock ticks per second of `/proc`'s times (`sysconf(_SC_CLK_TCK)` is 100 on every
/// Linux architecture this library builds for).
const TICKS: u64 = 100;

/// The fields of `/proc/<pid>/stat` (proc(5)): the command between parentheses, then
/// state, ..., utime (14), stime (15), priority (18), num_threads (20), starttime (22),
/// processor (39).
fn parse_stat(stat: &str, uptime: &str, fields: &Fields, out: &mut Vec<Info>) -> Option<()> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = &stat[open + 1..close];
    // Field 3 onwards; index 0 is field 3 (state).
    let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let field = |n: usize| rest.get(n - 3).copied().unwrap_or("0");
    let num = |n: usize| field(n).parse::<i64>().unwrap_or(0);
    push_if(out, fields, ak::PMIX_CMD_LINE, Value::string(comm));
    push_if(out, fields, ak::PMIX_PROC_OS_STATE, Value::string(field(3)));
    let ticks = (num(14) + num(15)).max(0) as u64;
    push_if(
        out,
        fields,
        ak::PMIX_PROC_TIME,
        Value::Timeval(
            (ticks / TICKS) as i64,
            ((ticks % TICKS) * (1_000_000 / TICKS)) as i64,
        ),
    );
    let up: f64 = uptime
        .split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    let alive = up - num(22) as f64 / TICKS as f64;
    let pcpu = if alive > 0.0 {
        (ticks as f64 / TICKS as f64 / alive * 100.0) as f32
    } else {
        0.0
    };
    push_if(out, fields, ak::PMIX_PROC_PERCENT_CPU, Value::Float(pcpu));
    push_if(
        out,
        fields,
        ak::PMIX_PROC_PRIORITY,
        Value::Int32(num(18) as i32),
    );
    push_if(
        out,
        fields,
        ak::PMIX_PROC_NUM_THREADS,
        Value::Uint16(num(20).clamp(0, u16::MAX as i64) as u16),
    );
    push_if(
        out,
        fields,
        ak::PMIX_PROC_CPU,
        Value::Uint16(num(39).clamp(0, u16::MAX as i64) as u16),
    );
    Some(())
}

/// The `Vm*` lines of `/proc/<pid>/status` (kB) as megabytes.
fn parse_status(status: &str, fields: &Fields, out: &mut Vec<Info>) {
    for (line_key, key) in [
        ("VmPeak", ak::PMIX_PROC_PEAK_VSIZE),
        ("VmSize", ak::PMIX_PROC_VSIZE),
        ("VmRSS", ak::PMIX_PROC_RSS),
    ] {
        if let Some(kb) = kb_line(status, line_key) {
            push_if(out, fields, key, Value::Float(kb_to_mb(kb)));
        }
    }
}

/// The `Pss:` line of `/proc/<pid>/smaps_rollup` (kB, the sum over every mapping the
/// kernel already made) as `PMIX_PROC_PSS` in megabytes; nothing when the file is
/// unreadable (another user's process, an old kernel) or says 0, as OpenPMIx's reader
/// leaves the field out then.
fn parse_pss(rollup: &str, out: &mut Vec<Info>) {
    if let Some(kb) = kb_line(rollup, "Pss").filter(|&kb| kb > 0) {
        push(out, ak::PMIX_PROC_PSS, Value::Float(kb_to_mb(kb)));
    }
}

/// The number of a `Name:   1234 kB` line.
fn kb_line(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.split_whitespace().next()?.parse().ok())?
    })
}

/// `/proc/loadavg` and `/proc/meminfo` as the infos of `PMIX_NODE_RESOURCE_USAGE`
/// (without the host name and node id, which the caller puts first).
pub(super) fn node_usage(fields: &Fields) -> Vec<Info> {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mut out = Vec::new();
    parse_node(&load, &mem, fields, &mut out);
    push(&mut out, ak::PMIX_NODE_SAMPLE_TIME, Value::Time(now()));
    out
}

fn parse_node(load: &str, mem: &str, fields: &Fields, out: &mut Vec<Info>) {
    let mut la = load
        .split_whitespace()
        .map(|s| s.parse::<f32>().unwrap_or(0.0));
    for key in [
        ak::PMIX_NODE_LOAD_AVG,
        ak::PMIX_NODE_LOAD_AVG5,
        ak::PMIX_NODE_LOAD_AVG15,
    ] {
        let v = la.next().unwrap_or(0.0);
        push_if(out, fields, key, Value::Float(v));
    }
    for (line_key, key) in [
        ("MemTotal", ak::PMIX_NODE_MEM_TOTAL),
        ("MemFree", ak::PMIX_NODE_MEM_FREE),
        ("Buffers", ak::PMIX_NODE_MEM_BUFFERS),
        ("Cached", ak::PMIX_NODE_MEM_CACHED),
        ("SwapCached", ak::PMIX_NODE_MEM_SWAP_CACHED),
        ("SwapTotal", ak::PMIX_NODE_SWAP_TOTAL),
        ("SwapFree", ak::PMIX_NODE_MEM_SWAP_FREE),
        ("Mapped", ak::PMIX_NODE_MEM_MAPPED),
    ] {
        if let Some(kb) = kb_line(mem, line_key) {
            push_if(out, fields, key, Value::Float(kb_to_mb(kb)));
        }
    }
}

/// `/proc/diskstats` as one `PMIX_DISK_RESOURCE_USAGE` array per block device (only
/// those named in `only`, when given).
pub(super) fn disk_usage(only: &Option<Vec<String>>, fields: &Fields) -> Vec<Info> {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
    parse_disks(&text, only, fields, now())
}

fn parse_disks(text: &str, only: &Option<Vec<String>>, fields: &Fields, t: i64) -> Vec<Info> {
    const KEYS: [&str; 11] = [
        ak::PMIX_DISK_READ_COMPLETED,
        ak::PMIX_DISK_READ_MERGED,
        ak::PMIX_DISK_READ_SECTORS,
        ak::PMIX_DISK_READ_MILLISEC,
        ak::PMIX_DISK_WRITE_COMPLETED,
        ak::PMIX_DISK_WRITE_MERGED,
        ak::PMIX_DISK_WRITE_SECTORS,
        ak::PMIX_DISK_WRITE_MILLISEC,
        ak::PMIX_DISK_IO_IN_PROGRESS,
        ak::PMIX_DISK_IO_MILLISEC,
        ak::PMIX_DISK_IO_WEIGHTED,
    ];
    let mut disks = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 14 || !selected(only, f[2]) {
            continue;
        }
        let mut d = Vec::new();
        push(&mut d, ak::PMIX_DISK_ID, Value::string(f[2]));
        for (n, key) in KEYS.iter().enumerate() {
            let v = f[3 + n].parse::<u64>().unwrap_or(0);
            push_if(&mut d, fields, key, Value::Uint64(v));
        }
        push(&mut d, ak::PMIX_DISK_SAMPLE_TIME, Value::Time(t));
        disks.extend(array_of(ak::PMIX_DISK_RESOURCE_USAGE, d));
    }
    disks
}

/// `/proc/net/dev` as one `PMIX_NETWORK_RESOURCE_USAGE` array per interface.
pub(super) fn net_usage(only: &Option<Vec<String>>, fields: &Fields) -> Vec<Info> {
    let text = std::fs::read_to_string("/proc/net/dev").unwrap_or_default();
    parse_nets(&text, only, fields, now())
}

fn parse_nets(text: &str, only: &Option<Vec<String>>, fields: &Fields, t: i64) -> Vec<Info> {
    let mut nets = Vec::new();
    for line in text.lines() {
        let Some((name, counters)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let c: Vec<u64> = counters
            .split_whitespace()
            .map(|s| s.parse().unwrap_or(0))
            .collect();
        if c.len() < 11 || !selected(only, name) {
            continue;
        }
        let mut d = Vec::new();
        push(&mut d, ak::PMIX_NETWORK_ID, Value::string(name));
        // Receive: bytes packets errs ...; transmit starts at the ninth counter.
        for (key, v) in [
            (ak::PMIX_NET_RECVD_BYTES, c[0]),
            (ak::PMIX_NET_RECVD_PCKTS, c[1]),
            (ak::PMIX_NET_RECVD_ERRS, c[2]),
            (ak::PMIX_NET_SENT_BYTES, c[8]),
            (ak::PMIX_NET_SENT_PCKTS, c[9]),
            (ak::PMIX_NET_SENT_ERRS, c[10]),
        ] {
            push_if(&mut d, fields, key, Value::Uint64(v));
        }
        push(&mut d, ak::PMIX_NET_SAMPLE_TIME, Value::Time(t));
        nets.extend(array_of(ak::PMIX_NETWORK_RESOURCE_USAGE, d));
    }
    nets
}

fn selected(only: &Option<Vec<String>>, name: &str) -> bool {
    only.as_ref().is_none_or(|o| o.iter().any(|n| n == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(v: &'a [Info], key: &str) -> Option<&'a Value> {
        v.iter().find(|i| i.key.as_str() == key).map(|i| &i.value)
    }

    #[test]
    fn stat_line_fields_land_on_their_keys() {
        // pid (comm with ) and spaces) state ppid ... as proc(5) lays them out.
        let mut stat = String::from("42 (a b) c) S");
        for n in 4..=52 {
            let v = match n {
                14 => 250,  // utime
                15 => 50,   // stime
                18 => 20,   // priority
                20 => 7,    // threads
                22 => 1000, // starttime: 10 s after boot
                39 => 1,    // processor
                _ => 0,
            };
            stat.push_str(&format!(" {v}"));
        }
        let mut out = Vec::new();
        parse_stat(&stat, "40.00 1.0", &None, &mut out).unwrap();
        assert_eq!(get(&out, ak::PMIX_CMD_LINE), Some(&Value::string("a b) c")));
        assert_eq!(get(&out, ak::PMIX_PROC_OS_STATE), Some(&Value::string("S")));
        assert_eq!(get(&out, ak::PMIX_PROC_TIME), Some(&Value::Timeval(3, 0)));
        assert_eq!(get(&out, ak::PMIX_PROC_PRIORITY), Some(&Value::Int32(20)));
        assert_eq!(
            get(&out, ak::PMIX_PROC_NUM_THREADS),
            Some(&Value::Uint16(7))
        );
        assert_eq!(get(&out, ak::PMIX_PROC_CPU), Some(&Value::Uint16(1)));
        // 3 s of CPU over 30 s alive.
        assert_eq!(
            get(&out, ak::PMIX_PROC_PERCENT_CPU),
            Some(&Value::Float(10.0))
        );
        let only = Some(vec![ak::PMIX_PROC_PRIORITY.to_string()]);
        let mut out = Vec::new();
        parse_stat(&stat, "40.00 1.0", &only, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert!(parse_stat("garbage", "", &None, &mut Vec::new()).is_none());
    }

    #[test]
    fn status_meminfo_diskstats_and_net_dev() {
        let mut out = Vec::new();
        parse_status(
            "Name:\tx\nVmPeak:\t  2048 kB\nVmRSS:\t 1024 kB\n",
            &None,
            &mut out,
        );
        assert_eq!(
            get(&out, ak::PMIX_PROC_PEAK_VSIZE),
            Some(&Value::Float(2.0))
        );
        assert_eq!(get(&out, ak::PMIX_PROC_RSS), Some(&Value::Float(1.0)));
        assert_eq!(get(&out, ak::PMIX_PROC_VSIZE), None);
        let rollup = "55d0-7ffd ---p 00000000 00:00 0  [rollup]\nRss:  4096 kB\n\
                      Pss:  3072 kB\nPss_Anon:  1024 kB\nPss_File:  2048 kB\n";
        let mut out = Vec::new();
        parse_pss(rollup, &mut out);
        assert_eq!(out.len(), 1, "Pss only, not its Pss_* parts");
        assert_eq!(get(&out, ak::PMIX_PROC_PSS), Some(&Value::Float(3.0)));
        let mut out = Vec::new();
        parse_pss("Pss:  0 kB\n", &mut out);
        parse_pss("", &mut out);
        assert!(out.is_empty());

        let mut out = Vec::new();
        parse_node(
            "0.50 0.25 0.10 1/2 3\n",
            "MemTotal: 4096 kB\nSwapFree: 0 kB\n",
            &None,
            &mut out,
        );
        assert_eq!(
            get(&out, ak::PMIX_NODE_LOAD_AVG5),
            Some(&Value::Float(0.25))
        );
        assert_eq!(get(&out, ak::PMIX_NODE_MEM_TOTAL), Some(&Value::Float(4.0)));
        assert_eq!(
            get(&out, ak::PMIX_NODE_MEM_SWAP_FREE),
            Some(&Value::Float(0.0))
        );

        let disks =
            " 253 0 vda 1 2 3 4 5 6 7 8 9 10 11 0 0 0 0\n 7 0 loop0 1 1 1 1 1 1 1 1 1 1 1\n";
        let all = parse_disks(disks, &None, &None, 5);
        assert_eq!(all.len(), 2);
        let one = parse_disks(disks, &Some(vec!["vda".into()]), &None, 5);
        let Value::DataArray(a) = &one[0].value else {
            panic!("not an array")
        };
        assert_eq!(a.items.len(), 13);
        let net = "Inter-| Receive\n face |bytes\n  lo: 100 2 0 0 0 0 0 0 300 4 1 0 0 0 0 0\n";
        let nets = parse_nets(net, &None, &None, 5);
        assert_eq!(nets.len(), 1);
        let Value::DataArray(a) = &nets[0].value else {
            panic!("not an array")
        };
        let items: Vec<Info> = a
            .items
            .iter()
            .filter_map(|v| match v {
                Value::Info(i) => Some((**i).clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            get(&items, ak::PMIX_NET_SENT_BYTES),
            Some(&Value::Uint64(300))
        );
        assert_eq!(get(&items, ak::PMIX_NET_SENT_ERRS), Some(&Value::Uint64(1)));
    }

    #[test]
    fn own_process_is_sampled() {
        let me = ProcId::new(crate::value::Nspace::new("t").unwrap(), 0);
        let v = proc_usage(&me, std::process::id() as i32, "h", &None).unwrap();
        assert!(matches!(get(&v, ak::PMIX_PROC_RSS), Some(Value::Float(f)) if *f > 0.0));
        // Our own smaps_rollup is always readable on the kernels CI runs.
        assert!(matches!(get(&v, ak::PMIX_PROC_PSS), Some(Value::Float(f)) if *f > 0.0));
        assert!(proc_usage(&me, i32::MAX, "h", &None).is_none());
        // Fields named: only those (and the entry's identity), whatever file each is in.
        let vsize = Some(vec![ak::PMIX_PROC_VSIZE.to_string()]);
        let v = proc_usage(&me, std::process::id() as i32, "h", &vsize).unwrap();
        assert!(matches!(get(&v, ak::PMIX_PROC_VSIZE), Some(Value::Float(f)) if *f > 0.0));
        for k in [
            ak::PMIX_PROC_PSS,
            ak::PMIX_PROC_RSS,
            ak::PMIX_PROC_PERCENT_CPU,
        ] {
            assert!(get(&v, k).is_none(), "{k} was not asked for");
        }
    }
}
