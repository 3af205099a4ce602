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
}
