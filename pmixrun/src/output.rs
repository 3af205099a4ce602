//! Forwarding a rank's stdout/stderr: raw chunks, or whole lines with a
//! `[nspace,rank] ` prefix (`--tag-output`), so lines of different ranks never mix.

/// Longest partial line kept before it is forwarded anyway (a rank printing without
/// newlines must not make pmixrun grow without bound).
const MAX_PARTIAL: usize = 64 * 1024;

/// One output stream of one rank.
#[derive(Debug)]
pub struct Stream {
    prefix: Option<Vec<u8>>,
    partial: Vec<u8>,
}

impl Stream {
    /// A stream; `prefix` (e.g. `[ns,3] `) turns on line tagging.
    pub fn new(prefix: Option<String>) -> Stream {
        Stream {
            prefix: prefix.map(String::into_bytes),
            partial: Vec::new(),
        }
    }

    /// Take `data` just read from the rank; append what is ready to forward to `out`.
    pub fn feed(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let Some(prefix) = &self.prefix else {
            out.extend_from_slice(data);
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
        if let Some(prefix) = &self.prefix {
            if !self.partial.is_empty() {
                out.extend_from_slice(prefix);
                out.append(&mut self.partial);
                out.push(b'\n');
            }
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
    fn untagged_passes_bytes_through() {
        let mut s = Stream::new(None);
        let mut out = Vec::new();
        s.feed(b"abc", &mut out);
        s.feed(b"\nd", &mut out);
        s.finish(&mut out);
        assert_eq!(out, b"abc\nd");
    }

    #[test]
    fn tagged_keeps_lines_whole_across_reads() {
        let mut s = Stream::new(Some("[j,1] ".into()));
        let mut out = Vec::new();
        s.feed(b"hel", &mut out);
        assert!(out.is_empty());
        s.feed(b"lo\nwor", &mut out);
        assert_eq!(out, b"[j,1] hello\n");
        s.feed(b"ld\n\nx", &mut out);
        assert_eq!(out, b"[j,1] hello\n[j,1] world\n[j,1] \n");
        s.finish(&mut out);
        assert_eq!(out, b"[j,1] hello\n[j,1] world\n[j,1] \n[j,1] x\n");
    }

    #[test]
    fn tagged_overlong_line_is_split() {
        let mut s = Stream::new(Some("[j,0] ".into()));
        let mut out = Vec::new();
        s.feed(&vec![b'a'; MAX_PARTIAL + 5], &mut out);
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
