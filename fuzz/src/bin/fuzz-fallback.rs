//! The libFuzzer-free side of `fuzz/`: writes the seed corpora and runs the same targets
//! under a deterministic mutation loop (no coverage feedback, no sanitizer), for
//! machines where `cargo fuzz` cannot build.
//!
//! ```text
//! fuzz-fallback gen <dir>                      write <dir>/<target>/seed-NNNN files
//! fuzz-fallback run <target> [options]         mutate and run
//!     --corpus <dir>     start from these files (default: the built-in seeds)
//!     --seconds <s>      stop after s seconds (default 10)
//!     --iters <n>        stop after n executions
//!     --seed <x>         PRNG seed (default 1)
//!     --artifacts <dir>  where a crashing input is written (default artifacts/<target>)
//! fuzz-fallback replay <target> <file>...      run the target once on each file
//! ```
//! A failing assertion or panic writes the input to the artifacts directory and exits 1.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn usage() -> ! {
    eprintln!("usage: fuzz-fallback gen <dir> | run <target> [--corpus d] [--seconds s] [--iters n] [--seed x] [--artifacts d] | replay <target> <file>...");
    std::process::exit(2)
}

fn target(name: &str) -> pmix_fuzz::Target {
    pmix_fuzz::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| {
            eprintln!("unknown target {}", name);
            usage()
        })
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Values that tend to sit on boundaries of length and count checks.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0xffff_ffff,
    u64::MAX,
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, pool: &[Vec<u8>]) {
    for _ in 0..=rng.below(4) {
        let len = input.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                input.insert(i, rng.next() as u8);
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(8));
                input.drain(i..i + n);
            }
            4 => {
                // overwrite with a little-endian boundary value of 1, 2, 4 or 8 bytes
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let w = [1usize, 2, 4, 8][rng.below(4)];
                let bytes = &v.to_le_bytes()[..w];
                if len >= w {
                    let i = rng.below(len - w + 1);
                    input[i..i + w].copy_from_slice(bytes);
                } else {
                    input.extend_from_slice(bytes);
                }
            }
            5 if len > 0 => input.truncate(rng.below(len)),
            6 if !pool.is_empty() => {
                // splice: our prefix, another input's suffix
                let other = &pool[rng.below(pool.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                input.truncate(cut);
                input.extend_from_slice(&other[from..]);
            }
            7 if len > 0 => {
                // duplicate a chunk (repeated records/items)
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                let chunk = input[i..i + n].to_vec();
                let at = rng.below(input.len() + 1);
                input.splice(at..at, chunk);
            }
            _ => {
                if len > 0 {
                    let i = rng.below(len);
                    input[i] = input[i].wrapping_add(1 + rng.below(3) as u8);
                }
            }
        }
    }
}

fn load_corpus(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn run_one(f: pmix_fuzz::Target, input: &[u8], artifacts: &Path, name: &str) {
    if std::panic::catch_unwind(|| f(input)).is_err() {
        let _ = std::fs::create_dir_all(artifacts);
        let h = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        let path = artifacts.join(format!("crash-{:016x}", h));
        let _ = std::fs::write(&path, input);
        eprintln!(
            "fuzz-fallback {}: FAIL, input ({} bytes) written to {}",
            name,
            input.len(),
            path.display()
        );
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => {
            let dir = PathBuf::from(args.get(1).unwrap_or_else(|| usage()));
            for (name, _) in pmix_fuzz::TARGETS {
                let d = dir.join(name);
                std::fs::create_dir_all(&d).expect("create corpus dir");
                let seeds = pmix_fuzz::seeds(name);
                for (i, s) in seeds.iter().enumerate() {
                    std::fs::write(d.join(format!("seed-{:04}", i)), s).expect("write seed");
                }
                println!("{}: {} seeds in {}", name, seeds.len(), d.display());
            }
        }
        Some("replay") => {
            let name = args.get(1).unwrap_or_else(|| usage());
            let f = target(name);
            for file in &args[2..] {
                let data = std::fs::read(file).expect("read input");
                f(&data);
                println!("{}: {} ok", name, file);
            }
        }
        Some("run") => {
            let name = args.get(1).unwrap_or_else(|| usage()).clone();
            let f = target(&name);
            let mut corpus_dir = None;
            let mut seconds = 10u64;
            let mut iters = u64::MAX;
            let mut seed = 1u64;
            let mut artifacts = PathBuf::from("artifacts").join(&name);
            let mut i = 2;
            while i < args.len() {
                let v = args.get(i + 1).unwrap_or_else(|| usage());
                match args[i].as_str() {
                    "--corpus" => corpus_dir = Some(PathBuf::from(v)),
                    "--seconds" => seconds = v.parse().unwrap_or_else(|_| usage()),
                    "--iters" => iters = v.parse().unwrap_or_else(|_| usage()),
                    "--seed" => seed = v.parse().unwrap_or_else(|_| usage()),
                    "--artifacts" => artifacts = PathBuf::from(v),
                    _ => usage(),
                }
                i += 2;
            }
            let mut pool = corpus_dir.as_deref().map(load_corpus).unwrap_or_default();
            if pool.is_empty() {
                pool = pmix_fuzz::seeds(&name);
            }
            // The seeds themselves first.
            for s in &pool {
                run_one(f, s, &artifacts, &name);
            }
            // Keep panics quiet in the loop; a failure is reported by run_one.
            let start = Instant::now();
            let limit = Duration::from_secs(seconds);
            let mut rng = Rng(seed.max(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let mut execs = pool.len() as u64;
            while execs < iters && start.elapsed() < limit {
                let mut input = pool[rng.below(pool.len())].clone();
                mutate(&mut rng, &mut input, &pool);
                run_one(f, &input, &artifacts, &name);
                execs += 1;
                // Grow the pool a little with mutants so mutations stack over time.
                if rng.below(64) == 0 && pool.len() < 4096 {
                    pool.push(input);
                }
            }
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            println!(
                "fuzz-fallback {}: {} executions in {:.1} s ({:.0}/s), pool {}, no failure",
                name,
                execs,
                secs,
                execs as f64 / secs,
                pool.len()
            );
        }
        _ => usage(),
    }
}
