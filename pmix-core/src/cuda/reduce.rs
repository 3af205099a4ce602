//! The reductions of `allreduce_uint64` and the contribution format that carries them.
//!
//! A contribution is `op u8 | count u32 | count × u64`, all little-endian. Every member
//! receives every contribution (an allgather) and reduces them itself; because each
//! operation is commutative and associative on `u64` (sum wraps), every member computes
//! the same result whatever the order.

use crate::error::{Error, Result};
use crate::protocol::Contribution;

/// A reduction of `allreduce_uint64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum, wrapping at 2^64.
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Bitwise and.
    BitAnd,
    /// Bitwise or.
    BitOr,
    /// Bitwise exclusive or.
    BitXor,
}

impl ReduceOp {
    /// Every operation, in wire-code order.
    pub const ALL: [ReduceOp; 6] = [
        ReduceOp::Sum,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::BitAnd,
        ReduceOp::BitOr,
        ReduceOp::BitXor,
    ];

    fn code(self) -> u8 {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Min => 1,
            ReduceOp::Max => 2,
            ReduceOp::BitAnd => 3,
            ReduceOp::BitOr => 4,
            ReduceOp::BitXor => 5,
        }
    }

    fn from_code(c: u8) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.code() == c)
    }

    /// Combine two values.
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            ReduceOp::Sum => a.wrapping_add(b),
            ReduceOp::Min => a.min(b),
            ReduceOp::Max => a.max(b),
            ReduceOp::BitAnd => a & b,
            ReduceOp::BitOr => a | b,
            ReduceOp::BitXor => a ^ b,
        }
    }
}

const HEADER: usize = 5;

/// One member's contribution to an allreduce.
pub fn encode(op: ReduceOp, values: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 8 * values.len());
    out.push(op.code());
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Decode one contribution: its operation and values.
///
/// # Errors
/// `PMIX_ERR_UNPACK` for a malformed contribution.
fn decode(data: &[u8]) -> Result<(ReduceOp, Vec<u64>)> {
    let bad = || Error::unpack("malformed allreduce contribution");
    let (&code, rest) = data.split_first().ok_or_else(bad)?;
    let op = ReduceOp::from_code(code).ok_or_else(bad)?;
    let (n, body) = rest.split_first_chunk::<4>().ok_or_else(bad)?;
    let n = u32::from_le_bytes(*n) as usize;
    if body.len() != n.checked_mul(8).ok_or_else(bad)? {
        return Err(bad());
    }
    let values = body
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect();
    Ok((op, values))
}

/// Reduce every member's contribution with `op`, each of which must carry `op` and
/// `count` values.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when the members disagree on the operation or the count (a
/// program error: CUDA issues the same operation on every member), or when there is no
/// contribution at all; `PMIX_ERR_UNPACK` for a malformed one.
pub fn combine(op: ReduceOp, count: usize, all: &[Contribution]) -> Result<Vec<u64>> {
    let mut acc: Option<Vec<u64>> = None;
    for c in all {
        let (their_op, values) = decode(&c.data)?;
        if their_op != op || values.len() != count {
            return Err(Error::bad_param(format!(
                "allreduce mismatch: we reduce {} values with {:?}, {} sent {} with {:?}",
                count,
                op,
                c.proc_,
                values.len(),
                their_op
            )));
        }
        acc = Some(match acc {
            None => values,
            Some(mut a) => {
                for (x, y) in a.iter_mut().zip(values) {
                    *x = op.apply(*x, y);
                }
                a
            }
        });
    }
    acc.ok_or_else(|| Error::bad_param("allreduce completed without contributions"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Nspace, ProcId};

    fn contrib(r: u32, op: ReduceOp, v: &[u64]) -> Contribution {
        Contribution {
            proc_: ProcId::new(Nspace::new("ns").unwrap(), r),
            data: encode(op, v),
        }
    }

    #[test]
    fn every_op_reduces_every_element() {
        let a = [1u64, u64::MAX, 0b1100];
        let b = [2u64, 3, 0b1010];
        let want = [
            (ReduceOp::Sum, [3u64, 2, 0b10110]),
            (ReduceOp::Min, [1, 3, 0b1010]),
            (ReduceOp::Max, [2, u64::MAX, 0b1100]),
            (ReduceOp::BitAnd, [0, 3, 0b1000]),
            (ReduceOp::BitOr, [3, u64::MAX, 0b1110]),
            (ReduceOp::BitXor, [3, u64::MAX ^ 3, 0b0110]),
        ];
        for (op, w) in want {
            let all = [contrib(0, op, &a), contrib(1, op, &b)];
            assert_eq!(combine(op, 3, &all).unwrap(), w.to_vec(), "{:?}", op);
        }
    }

    #[test]
    fn mismatches_and_garbage_are_errors() {
        let all = [
            contrib(0, ReduceOp::Sum, &[1]),
            contrib(1, ReduceOp::Max, &[1]),
        ];
        assert_eq!(
            combine(ReduceOp::Sum, 1, &all).unwrap_err().status,
            pmix_sys::PMIX_ERR_BAD_PARAM
        );
        let all = [contrib(0, ReduceOp::Sum, &[1, 2])];
        assert!(combine(ReduceOp::Sum, 1, &all).is_err());
        assert!(combine(ReduceOp::Sum, 1, &[]).is_err());
        let mut bad = contrib(0, ReduceOp::Sum, &[1]);
        for cut in 0..bad.data.len() {
            let mut c = bad.clone();
            c.data.truncate(cut);
            assert!(combine(ReduceOp::Sum, 1, &[c]).is_err(), "cut {}", cut);
        }
        bad.data[0] = 99;
        assert!(combine(ReduceOp::Sum, 1, &[bad]).is_err());
    }

    #[test]
    fn zero_elements_is_a_valid_reduction() {
        let all = [
            contrib(0, ReduceOp::Min, &[]),
            contrib(1, ReduceOp::Min, &[]),
        ];
        assert_eq!(combine(ReduceOp::Min, 0, &all).unwrap(), Vec::<u64>::new());
    }
}
