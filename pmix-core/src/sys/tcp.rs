//! Loopback TCP for the OpenPMIx listener: who owns the other end of an accepted
//! connection (the kernel's socket table, `/proc/net/tcp`), and handing an accepted TCP
//! socket to the reactor, whose connections are stream sockets read and written with
//! `read`/`write`/`shutdown` only.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// One row of `/proc/net/tcp{,6}`: local address, remote address, state, owner uid.
fn parse_row(line: &str) -> Option<(SocketAddr, SocketAddr, u8, u32)> {
    let mut f = line.split_whitespace();
    let _slot = f.next()?;
    let local = parse_addr(f.next()?)?;
    let remote = parse_addr(f.next()?)?;
    let state = u8::from_str_radix(f.next()?, 16).ok()?;
    let _queues = f.next()?;
    let _timer = f.next()?;
    let _retransmits = f.next()?;
    let uid = f.next()?.parse().ok()?;
    Some((local, remote, state, uid))
}

/// `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6): the kernel prints each
/// 32-bit word of the address as the host-order number of its network-order bytes.
fn parse_addr(s: &str) -> Option<SocketAddr> {
    let (a, p) = s.split_once(':')?;
    let port = u16::from_str_radix(p, 16).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> {
        let w = a.get(i * 8..i * 8 + 8)?;
        Some(u32::from_str_radix(w, 16).ok()?.to_ne_bytes())
    };
    let ip = match a.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            IpAddr::V6(Ipv6Addr::from(b))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// The same endpoint, an IPv4-mapped IPv6 address taken as its IPv4 address.
fn same(a: &SocketAddr, b: &SocketAddr) -> bool {
    let canon = |s: &SocketAddr| match s.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), s.port()),
            None => *s,
        },
        IpAddr::V4(_) => *s,
    };
    canon(a) == canon(b)
}

/// The uid owning the socket whose local end is `peer` and whose remote end is `ours`,
/// from socket-table text in the `/proc/net/tcp` format. `None`: no such socket.
pub fn owner_in_table(table: &str, peer: &SocketAddr, ours: &SocketAddr) -> Option<u32> {
    table
        .lines()
        .skip(1)
        .filter_map(parse_row)
        .find(|(l, r, _, _)| same(l, peer) && same(r, ours))
        .map(|(_, _, _, uid)| uid)
}

/// The uid of the process that owns the client end of an accepted loopback TCP
/// connection: `peer` is the accepted socket's peer address, `ours` its local address.
/// `Ok(None)` when the kernel's tables (this network namespace's `/proc/net/tcp` and
/// `tcp6`) hold no such socket: the peer is on another host, or already gone.
///
/// # Errors
/// The error reading the tables.
pub fn tcp_peer_uid(peer: &SocketAddr, ours: &SocketAddr) -> io::Result<Option<u32>> {
    // The kernel's socket-diagnostics interface looks the one socket up by its address
    // pair; reading `/proc/net/tcp` walks every TCP socket of the namespace (about 4 ms
    // of system time per read on the test machine, TIME_WAIT sockets included), once
    // per accepted OpenPMIx connection, on the progress thread. The table stays the
    // fallback where sock_diag is not available.
    match diag_owner(peer, ours) {
        Ok(found) => return Ok(found),
        Err(e) => log::debug!(
            "sock_diag lookup of {} failed ({}); reading /proc/net/tcp",
            peer,
            e
        ),
    }
    let mut last_err = None;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        match std::fs::read_to_string(table) {
            Ok(text) => {
                if let Some(uid) = owner_in_table(&text, peer, ours) {
                    return Ok(Some(uid));
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    match last_err {
        Some(e) if !std::path::Path::new("/proc/net/tcp").exists() => Err(e),
        _ => Ok(None),
    }
}

/// `SOCK_DIAG_BY_FAMILY` (linux/sock_diag.h).
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLMSG_ERROR` (linux/netlink.h).
const NLMSG_ERROR: u16 = 2;
/// `NLM_F_REQUEST`.
const NLM_F_REQUEST: u16 = 1;
/// Bytes of a `struct nlmsghdr`.
const NLMSG_HDR: usize = 16;
/// Where `idiag_uid` sits in a `struct inet_diag_msg`: family, state, timer, retrans
/// (4 bytes), the 48-byte socket id, expires, rqueue, wqueue (12 bytes).
const DIAG_UID_AT: usize = 4 + 48 + 12;

/// A 16-byte `idiag_src`/`idiag_dst` field and the address family of `a`.
fn diag_addr(a: &SocketAddr) -> (u8, [u8; 16]) {
    let mut b = [0u8; 16];
    let ip = match a.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            b[..4].copy_from_slice(&v4.octets());
            (libc::AF_INET as u8, b)
        }
        IpAddr::V6(v6) => (libc::AF_INET6 as u8, v6.octets()),
    }
}

/// The `SOCK_DIAG_BY_FAMILY` request (no dump: an exact lookup) for the TCP socket whose
/// local end is `peer` and whose remote end is `ours`.
fn diag_request(peer: &SocketAddr, ours: &SocketAddr) -> Vec<u8> {
    let (family, src) = diag_addr(peer);
    let (_, dst) = diag_addr(ours);
    let mut m = Vec::with_capacity(NLMSG_HDR + 56);
    m.extend_from_slice(&((NLMSG_HDR + 56) as u32).to_ne_bytes());
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    m.extend_from_slice(&NLM_F_REQUEST.to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    m.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel fills it in
                                              // struct inet_diag_req_v2: family, protocol, extensions, pad, states (all).
    m.extend_from_slice(&[family, libc::IPPROTO_TCP as u8, 0, 0]);
    m.extend_from_slice(&u32::MAX.to_ne_bytes());
    // struct inet_diag_sockid: ports in network order, addresses, interface, and
    // INET_DIAG_NOCOOKIE (the cookie is not checked).
    m.extend_from_slice(&peer.port().to_be_bytes());
    m.extend_from_slice(&ours.port().to_be_bytes());
    m.extend_from_slice(&src);
    m.extend_from_slice(&dst);
    m.extend_from_slice(&0u32.to_ne_bytes());
    m.extend_from_slice(&[0xff; 8]);
    m
}

/// The owner uid in the kernel's answer to [`diag_request`]; `Ok(None)` when it has no
/// such socket (`ENOENT`).
fn diag_answer(r: &[u8]) -> io::Result<Option<u32>> {
    let short = || io::Error::new(io::ErrorKind::InvalidData, "short sock_diag answer");
    let kind = r.get(4..6).ok_or_else(short)?;
    let body = r.get(NLMSG_HDR..).ok_or_else(short)?;
    match u16::from_ne_bytes([kind[0], kind[1]]) {
        NLMSG_ERROR => {
            let e = body.get(..4).ok_or_else(short)?;
            match -i32::from_ne_bytes([e[0], e[1], e[2], e[3]]) {
                libc::ENOENT => Ok(None),
                0 => Err(short()),
                errno => Err(io::Error::from_raw_os_error(errno)),
            }
        }
        SOCK_DIAG_BY_FAMILY => {
            let u = body.get(DIAG_UID_AT..DIAG_UID_AT + 4).ok_or_else(short)?;
            Ok(Some(u32::from_ne_bytes([u[0], u[1], u[2], u[3]])))
        }
        other => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("sock_diag answered with message type {}", other),
        )),
    }
}

/// The uid owning the TCP socket whose local end is `peer` and whose remote end is
/// `ours`, asked of the kernel's socket diagnostics (netlink `NETLINK_SOCK_DIAG`). The
/// kernel answers within the send, so the receive never waits.
fn diag_owner(peer: &SocketAddr, ours: &SocketAddr) -> io::Result<Option<u32>> {
    use rustix::net::{self as rn, netlink};
    let fd = rn::socket_with(
        rn::AddressFamily::NETLINK,
        rn::SocketType::DGRAM,
        rn::SocketFlags::CLOEXEC,
        Some(netlink::SOCK_DIAG),
    )?;
    rn::send(&fd, &diag_request(peer, ours), rn::SendFlags::empty())?;
    let mut buf = [0u8; 512];
    let (n, _) = rn::recv(&fd, &mut buf[..], rn::RecvFlags::DONTWAIT)?;
    diag_answer(buf.get(..n).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_owner_of_the_peer_socket() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1\n\
   1: 0100007F:D431 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1234        0 222 1\n\
   2: 0100007F:9C40 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 333 1\n";
        let ours: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let peer: SocketAddr = "127.0.0.1:54321".parse().unwrap();
        assert_eq!(owner_in_table(table, &peer, &ours), Some(1234));
        let other: SocketAddr = "127.0.0.1:54322".parse().unwrap();
        assert_eq!(owner_in_table(table, &other, &ours), None);
        assert_eq!(owner_in_table("header only\n", &peer, &ours), None);
    }

    #[test]
    fn a_live_loopback_connection_is_ours() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, peer) = l.accept().unwrap();
        assert_eq!(peer, c.local_addr().unwrap());
        let uid = tcp_peer_uid(&peer, &s.local_addr().unwrap()).unwrap();
        assert_eq!(uid, Some(crate::sys::euid()));
    }

    #[test]
    fn sock_diag_finds_the_peer_socket_and_only_it() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let c = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, peer) = l.accept().unwrap();
        let ours = s.local_addr().unwrap();
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
        let want = owner_in_table(&table, &peer, &ours);
        assert_eq!(want, Some(crate::sys::euid()));
        assert_eq!(
            diag_owner(&peer, &ours).unwrap(),
            want,
            "as /proc/net/tcp says"
        );
        // A port nobody holds: no socket.
        let nobody = SocketAddr::new(c.local_addr().unwrap().ip(), 1);
        assert_eq!(diag_owner(&nobody, &ours).unwrap(), None);
        drop(c);
    }

    #[test]
    fn a_sock_diag_error_answer_is_an_error_or_not_found() {
        let err = |errno: i32| {
            let mut r = vec![0u8; NLMSG_HDR + 4];
            r[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
            r[NLMSG_HDR..].copy_from_slice(&(-errno).to_ne_bytes());
            r
        };
        assert_eq!(diag_answer(&err(libc::ENOENT)).unwrap(), None);
        assert!(diag_answer(&err(libc::EPERM)).is_err());
        assert!(diag_answer(&[1, 2, 3]).is_err(), "short");
        let mut ok = vec![0u8; NLMSG_HDR + DIAG_UID_AT + 8];
        ok[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        ok[NLMSG_HDR + DIAG_UID_AT..NLMSG_HDR + DIAG_UID_AT + 4]
            .copy_from_slice(&4321u32.to_ne_bytes());
        assert_eq!(diag_answer(&ok).unwrap(), Some(4321));
        assert_eq!(
            diag_request(
                &"127.0.0.1:5".parse().unwrap(),
                &"127.0.0.1:6".parse().unwrap()
            )
            .len(),
            72
        );
    }
}
