//! Forwarding a rank's stdout/stderr as whole lines, so lines of different ranks never
//! mix: untagged, a line a rank writes in pieces is held until its newline (or for
//! [`HOLD`] at most, so a prompt without a newline still shows); with `--tag-output`,
//! every line gets a `[nspace,rank] ` prefix.

use std::time::{Duration, Instant};

/// Longest partial line kept before it is forwarded anyway (a rank printing without
/// newlines must not make pmixrun grow without bound).
const MAX_PARTIAL: usize = 64 * 1024;

/// How long an untagged partial line waits for the rest of its line before it is
/// forwarded as it is (a prompt, or progress dots).
pub const HOLD: Duration = Duration::from_millis(100);

/// One output stream of one rank.
#[derive(Debug)]
pub struct Stream {
    prefix: Option<Vec<u8>>,
    partial: Vec<u8>,
    /// When the untagged partial line started to wait (None: nothing held).
    held_since: Option<Instant>,
}

impl Stream {
    /// A stream; `prefix` (e.g. `[ns,3] `) turns on line tagging.
    pub fn new(prefix: Option<String>) -> Stream {
        Stream {
            prefix: prefix.map(String::into_bytes),
            partial: Vec::new(),
            held_since: None,
        }
    }

    /// When the held partial line is due to be forwarded without its newline.
    pub fn due(&self) -> Option<Instant> {
        self.held_since.map(|t| t + HOLD)
    }

    /// Forward an untagged partial line that has waited [`HOLD`] or longer.
    pub fn flush_due(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.due().is_some_and(|d| now >= d) {
            out.append(&mut self.partial);
            self.held_since = None;
        }
    }

    /// Take `data` just read from the rank at `now`; append what is ready to forward to
    /// `out`.
    pub fn feed(&mut self, data: &[u8], now: Instant, out: &mut Vec<u8>) {
        let Some(prefix) = &self.prefix else {
            // Untagged: up to the last newline goes out (with what was held before it);
            // the rest waits for its newline.
            match data.iter().rposition(|&b| b == b'\n') {
                Some(nl) => {
                    let (lines, tail) = data.split_at(nl + 1);
                    out.append(&mut self.partial);
                    out.extend_from_slice(lines);
                    self.partial.extend_from_slice(tail);
                    self.held_since = (!tail.is_empty()).then_some(now);
                }
                None => {
                    if self.partial.is_empty() {
                        self.held_since = Some(now);
                    }
                    self.partial.extend_from_slice(data);
                }
            }
            if self.partial.len() >= MAX_PARTIAL {
                out.append(&mut self.partial);
                self.held_since = None;
            }
            return;
        };
        let mut rest = data;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(nl + 1);
            out.extend_from_slice(prefix);
            out.append(&mut self.partial);
            out.extend_from_slice(line);
            rest = tail;
        }
        self.partial.extend_from_slice(rest);
        if self.partial.len() >= MAX_PARTIAL {
            out.extend_from_slice(prefix);
            out.append(&mut self.partial);
            out.push(b'\n');
        }
    }

    /// The rank closed the stream: forward an unterminated last line.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.held_since = None;
        if self.partial.is_empty() {
            return;
        }
        match &self.prefix {
            Some(prefix) => {
                out.extend_from_slice(prefix);
                out.append(&mut self.partial);
                out.push(b'\n');
            }
            None => out.append(&mut self.partial),
        }
    }
}

/// Write one line of pmixrun's own (`pmixrun: ...`) in a single `write`, so that it never
/// interleaves with the ranks' output in a shared file or pipe (std's stderr is
/// unbuffered: `writeln!` would issue one write per formatted piece).
pub fn write_line(w: &mut dyn std::io::Write, text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    if !line.ends_with('\n') {
        line.push('\n');
    }
    // Nobody to tell if our own stderr is gone.
    let _ = w.write_all(line.as_bytes());
    let _ = w.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_keeps_lines_whole_and_loses_nothing() {
        let t = Instant::now();
        let mut s = Stream::new(None);
        let mut out = Vec::new();
        s.feed(b"abc", t, &mut out);
        assert!(out.is_empty(), "a partial line waits for its newline");
        s.feed(b"\nd", t, &mut out);
        assert_eq!(out, b"abc\n");
        s.finish(&mut out);
        assert_eq!(out, b"abc\nd");
        assert_eq!(s.due(), None);
    }

    #[test]
    fn untagged_partial_line_goes_out_after_the_hold() {
        let t = Instant::now();
        let mut s = Stream::new(None);
        let mut out = Vec::new();
        s.feed(b"x\nEnter a value: ", t, &mut out);
        assert_eq!(out, b"x\n");
        assert_eq!(s.due(), Some(t + HOLD));
        s.flush_due(t + HOLD / 2, &mut out);
        assert_eq!(out, b"x\n");
        s.flush_due(t + HOLD, &mut out);
        assert_eq!(out, b"x\nEnter a value: ");
        assert_eq!(s.due(), None);
        // The hold starts again with the next piece, not at the first one.
        s.feed(b"4", t + HOLD * 3, &mut out);
        assert_eq!(s.due(), Some(t + HOLD * 4));
    }

    #[test]
    fn untagged_overlong_line_is_forwarded() {
        let t = Instant::now();
        let mut s = Stream::new(None);
        let mut out = Vec::new();
        s.feed(&vec![b'a'; MAX_PARTIAL + 5], t, &mut out);
        assert_eq!(out.len(), MAX_PARTIAL + 5);
        assert_eq!(s.due(), None);
    }

    #[test]
    fn tagged_keeps_lines_whole_across_reads() {
        let t = Instant::now();
        let mut s = Stream::new(Some("[j,1] ".into()));
        let mut out = Vec::new();
        s.feed(b"hel", t, &mut out);
        assert!(out.is_empty());
        s.feed(b"lo\nwor", t, &mut out);
        assert_eq!(out, b"[j,1] hello\n");
        s.feed(b"ld\n\nx", t, &mut out);
        assert_eq!(out, b"[j,1] hello\n[j,1] world\n[j,1] \n");
        s.finish(&mut out);
        assert_eq!(out, b"[j,1] hello\n[j,1] world\n[j,1] \n[j,1] x\n");
    }

    #[test]
    fn tagged_overlong_line_is_split() {
        let t = Instant::now();
        let mut s = Stream::new(Some("[j,0] ".into()));
        let mut out = Vec::new();
        s.feed(&vec![b'a'; MAX_PARTIAL + 5], t, &mut out);
        assert_eq!(out.len(), 6 + MAX_PARTIAL + 5 + 1);
        assert!(out.starts_with(b"[j,0] aaa"));
    }

    #[test]
    fn own_lines_are_one_write_with_a_newline() {
        struct Writes(Vec<Vec<u8>>);
        impl std::io::Write for Writes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.push(b.to_vec());
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = Writes(Vec::new());
        write_line(&mut w, "pmixrun: a message");
        write_line(&mut w, "done\n");
        assert_eq!(
            w.0,
            vec![b"pmixrun: a message\n".to_vec(), b"done\n".to_vec()]
        );
    }
}
