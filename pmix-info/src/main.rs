//! `pmix_info`: what this PMIx library provides — its version and the OpenPMIx API and
//! Standard levels it implements, the wire protocols it speaks, its store and security,
//! the environment parameters it honours (default and current value), and with
//! `--attrs` the attributes each API function supports (the answer `PMIx_Query_info`
//! gives for `PMIX_QUERY_ATTRIBUTE_SUPPORT`).

mod json;
mod report;

/// The `--help` text.
const HELP: &str = "\
pmix_info: show what this PMIx library (pmix-rs) provides.

Usage:
  pmix_info [--json]
  pmix_info --attrs [FUNC[,FUNC...]] [--json]

Without --attrs: the library's version (as PMIx_Get_version returns it), the OpenPMIx
API and PMIx Standard levels it implements, the wire protocols it speaks, its store
(GDS) and security, and every environment parameter it honours with its default and
its value in pmix_info's environment.

Options:
  --attrs [FUNCS]       instead, list the attributes each API function supports: the
                        answer PMIx_Query_info gives for PMIX_QUERY_ATTRIBUTE_SUPPORT.
                        FUNCS (comma-separated, e.g. PMIx_Get,PMIx_Fence) narrows the
                        list; an unknown function is an error
  --json                print JSON instead of text
  -h, --help            show this text
  -V, --version         show the version

Exit status: 0; 2 for a usage error.
";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    /// The summary, or (`Some`) the attributes of these functions (empty: all).
    Show {
        attrs: Option<Vec<String>>,
        json: bool,
    },
}

/// Parse the arguments after the program name.
fn parse(args: &[String]) -> Result<Command, String> {
    let mut attrs: Option<Vec<String>> = None;
    let mut json = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let (opt, inline) = match a.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (a.as_str(), None),
        };
        let flag = |name: &str| match inline {
            Some(_) => Err(format!("{name} takes no value")),
            None => Ok(()),
        };
        match opt {
            "-h" | "--help" => return flag(opt).map(|()| Command::Help),
            "-V" | "--version" => return flag(opt).map(|()| Command::Version),
            "--json" => {
                flag(opt)?;
                json = true;
            }
            "--attrs" => {
                let value = match inline {
                    Some(v) => Some(v.to_string()),
                    None => match args.get(i) {
                        Some(v) if !v.starts_with('-') => {
                            i += 1;
                            Some(v.clone())
                        }
                        _ => None,
                    },
                };
                let mut list = attrs.take().unwrap_or_default();
                for f in value.iter().flat_map(|v| v.split(',')) {
                    if f.is_empty() {
                        return Err("--attrs: an empty function name".into());
                    }
                    list.push(f.to_string());
                }
                attrs = Some(list);
            }
            _ => return Err(format!("unknown option '{a}'")),
        }
    }
    Ok(Command::Show { attrs, json })
}

fn usage_error(e: &str) -> i32 {
    eprintln!("pmix_info: {e}\n\n{HELP}");
    2
}

fn run(args: &[String]) -> i32 {
    match parse(args) {
        Err(e) => usage_error(&e),
        Ok(Command::Help) => {
            print!("{HELP}");
            0
        }
        Ok(Command::Version) => {
            println!("pmix_info (pmix-rs) {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Ok(Command::Show { attrs: None, json }) => {
            if json {
                print!("{}", report::summary_json().render());
            } else {
                print!("{}", report::summary_text());
            }
            0
        }
        Ok(Command::Show {
            attrs: Some(funcs),
            json,
        }) => {
            let names: Vec<&str> = funcs.iter().map(String::as_str).collect();
            match report::attributes(&names) {
                Err(e) => usage_error(&e),
                Ok(per_fn) if json => {
                    print!("{}", report::attributes_json(&per_fn).render());
                    0
                }
                Ok(per_fn) => {
                    print!("{}", report::attributes_text(&per_fn));
                    0
                }
            }
        }
    }
}

fn main() {
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                std::process::exit(usage_error(&format!("argument {a:?} is not valid UTF-8")))
            }
        }
    }
    std::process::exit(run(&args));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, String> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn options_parse() {
        assert_eq!(
            p(&[]),
            Ok(Command::Show {
                attrs: None,
                json: false
            })
        );
        assert_eq!(
            p(&["--json"]),
            Ok(Command::Show {
                attrs: None,
                json: true
            })
        );
        assert_eq!(p(&["-h"]), Ok(Command::Help));
        assert_eq!(p(&["--version"]), Ok(Command::Version));
        assert_eq!(
            p(&["--attrs", "--json"]),
            Ok(Command::Show {
                attrs: Some(vec![]),
                json: true
            })
        );
        assert_eq!(
            p(&["--attrs", "PMIx_Get,PMIx_Fence"]),
            Ok(Command::Show {
                attrs: Some(vec!["PMIx_Get".into(), "PMIx_Fence".into()]),
                json: false
            })
        );
        assert_eq!(
            p(&["--attrs=PMIx_Get", "--json"]),
            Ok(Command::Show {
                attrs: Some(vec!["PMIx_Get".into()]),
                json: true
            })
        );
    }

    #[test]
    fn bad_options_are_usage_errors() {
        assert!(p(&["--bogus"])
            .unwrap_err()
            .contains("unknown option '--bogus'"));
        assert!(p(&["extra"])
            .unwrap_err()
            .contains("unknown option 'extra'"));
        assert!(p(&["--json=1"]).unwrap_err().contains("takes no value"));
        assert!(p(&["--attrs", "PMIx_Get,,x"])
            .unwrap_err()
            .contains("empty function"));
        assert_eq!(run(&["--bogus".to_string()]), 2);
        assert_eq!(run(&["--attrs=PMIx_Nothing".to_string()]), 2);
    }
}
