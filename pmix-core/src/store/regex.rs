//! Our printable node and process maps (`PMIx_generate_regex` / `PMIx_generate_ppn`) and
//! their parser.
//!
//! Format (plain text, safe to pass as a `PMIX_STRING`):
//! * node map: `pmixrs:` followed by the host names, comma-separated, in node-id order
//!   (`pmixrs:n1,n2`);
//! * process map: `pmixrs:` followed by one rank list per node, `;`-separated, each a
//!   comma-separated list of ranks or inclusive ranges (`pmixrs:0-1;2,5`).
//!
//! The parser also reads the `raw:` prefix (the same lists without range syntax), and a
//! plain list with no prefix. Generation and parsing are linear in the input.

use crate::error::{Error, Result};
use crate::value::{Rank, Value};

const PREFIX: &str = "pmixrs:";

/// The text of a string-like value (a map may arrive as `PMIX_STRING` or `PMIX_REGEX`).
pub fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(Some(b)) | Value::Regex(b) => {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            std::str::from_utf8(b.get(..end)?).ok().map(str::to_string)
        }
        _ => None,
    }
}

/// The node map for these host names.
pub fn generate_nodes<S: AsRef<str>>(hosts: &[S]) -> String {
    let mut s = String::from(PREFIX);
    for (i, h) in hosts.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(h.as_ref().trim());
    }
    s
}

/// The node map for a comma-separated host list (the `PMIx_generate_regex` input).
pub fn generate_nodes_from_list(input: &str) -> String {
    let hosts: Vec<&str> = input.split(',').filter(|h| !h.trim().is_empty()).collect();
    generate_nodes(&hosts)
}

/// The process map for these per-node rank lists.
pub fn generate_ppn(nodes: &[Vec<Rank>]) -> String {
    let mut s = String::from(PREFIX);
    for (i, ranks) in nodes.iter().enumerate() {
        if i > 0 {
            s.push(';');
        }
        let mut j = 0;
        let mut first = true;
        while j < ranks.len() {
            let start = ranks[j];
            let mut end = start;
            while j + 1 < ranks.len() && end.checked_add(1) == Some(ranks[j + 1]) {
                j += 1;
                end = ranks[j];
            }
            if !first {
                s.push(',');
            }
            first = false;
            if end > start {
                s.push_str(&format!("{}-{}", start, end));
            } else {
                s.push_str(&start.to_string());
            }
            j += 1;
        }
    }
    s
}

/// The process map for a `PMIx_generate_ppn` input (`"0,1;2,3"`).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` if a rank is not a number.
pub fn generate_ppn_from_list(input: &str) -> Result<String> {
    let nodes = parse_ppn(input)?;
    Ok(generate_ppn(&nodes))
}

fn strip(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix(PREFIX)
        .or_else(|| t.strip_prefix("raw:"))
        .unwrap_or(t)
}

/// Host names of a node map, in node-id order.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a map in a foreign format (e.g. OpenPMIx's `pmix[...]`).
pub fn parse_nodes(text: &str) -> Result<Vec<String>> {
    let body = strip(text);
    if body.contains('[') {
        return Err(Error::bad_param(format!(
            "unsupported node map format: {:.40}",
            text
        )));
    }
    Ok(body
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(str::to_string)
        .collect())
}

/// Per-node rank lists of a process map.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for anything that is not a rank, a range, `,` or `;`, and for
/// ranges longer than 16 million ranks.
pub fn parse_ppn(text: &str) -> Result<Vec<Vec<Rank>>> {
    let body = strip(text);
    let mut out = Vec::new();
    for node in body.split(';') {
        let mut ranks = Vec::new();
        for part in node.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || Error::bad_param(format!("bad rank list entry {:?}", part));
            match part.split_once('-') {
                Some((a, b)) => {
                    let a: Rank = a.trim().parse().map_err(|_| bad())?;
                    let b: Rank = b.trim().parse().map_err(|_| bad())?;
                    if b < a || b - a > 1 << 24 {
                        return Err(bad());
                    }
                    ranks.extend(a..=b);
                }
                None => ranks.push(part.parse().map_err(|_| bad())?),
            }
        }
        out.push(ranks);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let hosts = ["a", "node-2", "c.example"];
        assert_eq!(generate_nodes(&hosts), "pmixrs:a,node-2,c.example");
        assert_eq!(parse_nodes(&generate_nodes(&hosts)).unwrap(), hosts);
        let ppn = vec![vec![0, 1, 2, 7], vec![3], vec![]];
        let s = generate_ppn(&ppn);
        assert_eq!(s, "pmixrs:0-2,7;3;");
        assert_eq!(parse_ppn(&s).unwrap(), ppn);
        assert_eq!(generate_ppn_from_list("0,1;2,3").unwrap(), "pmixrs:0-1;2-3");
        assert_eq!(
            parse_ppn("raw:0,1;2,3").unwrap(),
            vec![vec![0, 1], vec![2, 3]]
        );
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_ppn("pmixrs:0,x").is_err());
        assert!(parse_ppn("pmixrs:5-1").is_err());
        assert!(parse_ppn("pmixrs:0-4294967295").is_err());
        assert!(parse_nodes("pmix[vm]").is_err());
    }
}
