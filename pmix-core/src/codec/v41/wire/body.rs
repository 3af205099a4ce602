//! Message bodies as OpenPMIx builds them: a sequence of pack calls, each an `INT32`
//! count and that many elements of one type ([`BodyWriter`], [`BodyReader`]).

use crate::codec::v41::{past_end, Packer, Unpacker};
use crate::error::{Error, Result};
use crate::value::{Info, Key, ProcId, Value};
use pmix_sys as sys;

/// Builds a body, one pack call at a time.
#[derive(Debug, Default)]
pub struct BodyWriter {
    p: Packer,
}

impl BodyWriter {
    /// An empty body.
    pub fn new() -> Self {
        Self::default()
    }
    /// The finished body.
    pub fn finish(self) -> Vec<u8> {
        self.p.into_bytes()
    }
    /// One `PMIX_COMMAND`.
    pub fn cmd(&mut self, c: u8) {
        self.p.int(1);
        self.p.byte(c);
    }
    /// One 8-bit enum (`PMIX_SCOPE`, `PMIX_DATA_RANGE`, `PMIX_ALLOC_DIRECTIVE`).
    pub fn byte(&mut self, b: u8) {
        self.p.int(1);
        self.p.byte(b);
    }
    /// One `PMIX_STATUS` (also `INT32`).
    pub fn status(&mut self, s: i32) {
        self.p.int(1);
        self.p.int(s as i64);
    }
    /// One `PMIX_SIZE`.
    pub fn size(&mut self, n: usize) {
        self.p.int(1);
        self.p.size(n);
    }
    /// One `UINT32` (also `PMIX_PROC_RANK`).
    pub fn u32(&mut self, v: u32) {
        self.p.int(1);
        self.p.uint(v as u64);
    }
    /// One `PMIX_TIME`.
    pub fn time(&mut self, t: u64) {
        self.p.int(1);
        self.p.uint(t);
    }
    /// One `PMIX_STRING` (`None`: NULL).
    pub fn string(&mut self, s: Option<&str>) {
        self.p.int(1);
        self.p.string(s.map(str::as_bytes));
    }
    /// One `PMIX_PROC`.
    pub fn proc_id(&mut self, id: &ProcId) {
        self.p.int(1);
        self.p.proc_id(id);
    }
    /// One `PMIX_BYTE_OBJECT`.
    pub fn byte_object(&mut self, b: &[u8]) {
        self.p.int(1);
        self.p.bytes(b);
    }
    /// One `PMIX_BUFFER` holding a NON_DESC buffer.
    pub fn buffer(&mut self, b: &[u8]) {
        self.p.int(1);
        self.p.byte(super::handshake::BUFFER_NON_DESC);
        self.p.bytes(b);
    }
    /// One `PMIX_KVAL`.
    pub fn kval(&mut self, key: &str, v: &Value) -> Result<()> {
        self.p.int(1);
        self.p.string(Some(key.as_bytes()));
        self.p.value(v)
    }
    /// One pack of `items` of type `t` (an `INT32` count then the elements).
    pub fn values(&mut self, items: &[Value], t: u16) -> Result<()> {
        self.p.pack(items, t)
    }
    /// `SIZE n`, then (when `n > 0`) one pack of `n` procs.
    pub fn procs(&mut self, procs: &[ProcId]) {
        self.size(procs.len());
        if !procs.is_empty() {
            self.p.int(procs.len() as i64);
            procs.iter().for_each(|p| self.p.proc_id(p));
        }
    }
    /// One pack of `n` procs (no `SIZE` before it; `n` may be 0).
    pub fn procs_always(&mut self, procs: &[ProcId]) {
        self.size(procs.len());
        self.p.int(procs.len() as i64);
        procs.iter().for_each(|p| self.p.proc_id(p));
    }
    /// `SIZE n`, then (when `n > 0`) one pack of `n` infos.
    pub fn infos(&mut self, infos: &[Info]) -> Result<()> {
        self.size(infos.len());
        if !infos.is_empty() {
            self.p.int(infos.len() as i64);
            infos.iter().try_for_each(|i| self.p.info(i))?;
        }
        Ok(())
    }
    /// Raw bytes (an already-packed piece).
    pub fn raw(&mut self, b: &[u8]) {
        self.p.raw(b);
    }
}

/// Reads a body pack call by pack call.
#[derive(Debug)]
pub struct BodyReader<'a> {
    u: Unpacker<'a>,
}

impl<'a> BodyReader<'a> {
    /// A reader at the start of `body`.
    pub fn new(body: &'a [u8]) -> Self {
        BodyReader {
            u: Unpacker::new(body),
        }
    }
    /// True when the whole body has been read.
    pub fn is_empty(&self) -> bool {
        self.u.is_empty()
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.u.remaining()
    }
    /// Fail unless the body has been read to its end.
    pub fn end(&self, what: &str) -> Result<()> {
        if self.u.is_empty() {
            Ok(())
        } else {
            Err(Error::unpack(format!(
                "v41 {}: {} bytes left over",
                what,
                self.u.remaining()
            )))
        }
    }
    /// The count of a pack call expected to hold exactly one item.
    fn one(&mut self) -> Result<()> {
        match self.u.i32()? {
            1 => Ok(()),
            n => Err(Error::unpack(format!(
                "v41: pack of {} items where 1 expected",
                n
            ))),
        }
    }
    /// One `PMIX_COMMAND`.
    pub fn cmd(&mut self) -> Result<u8> {
        self.one()?;
        self.u.byte()
    }
    /// One 8-bit enum.
    pub fn byte(&mut self) -> Result<u8> {
        self.one()?;
        self.u.byte()
    }
    /// One `PMIX_STATUS`.
    pub fn status(&mut self) -> Result<i32> {
        self.one()?;
        self.u.i32()
    }
    /// One `PMIX_SIZE`.
    pub fn size(&mut self) -> Result<usize> {
        self.one()?;
        self.u.size()
    }
    /// One `UINT32` / `PMIX_PROC_RANK`.
    pub fn u32(&mut self) -> Result<u32> {
        self.one()?;
        self.u.u32()
    }
    /// One signed `PMIX_UINT`/`INT` (what 4.2.2's server reads a publish uid as).
    pub fn int(&mut self) -> Result<i64> {
        self.one()?;
        self.u.int(4)
    }
    /// One `PMIX_TIME`.
    pub fn time(&mut self) -> Result<u64> {
        self.one()?;
        self.u.uint(8)
    }
    /// One `PMIX_STRING`.
    pub fn string(&mut self) -> Result<Option<String>> {
        self.one()?;
        match self.u.string()? {
            None => Ok(None),
            Some(b) => String::from_utf8(b)
                .map(Some)
                .map_err(|_| Error::unpack("v41: string not UTF-8")),
        }
    }
    /// One `PMIX_PROC`.
    pub fn proc_id(&mut self) -> Result<ProcId> {
        self.one()?;
        self.u.proc_id()
    }
    /// One `PMIX_BYTE_OBJECT`.
    pub fn byte_object(&mut self) -> Result<Vec<u8>> {
        self.one()?;
        self.u.bytes()
    }
    /// One `PMIX_BUFFER` (its type byte must be NON_DESC).
    pub fn buffer(&mut self) -> Result<Vec<u8>> {
        self.one()?;
        let t = self.u.byte()?;
        if t != super::handshake::BUFFER_NON_DESC {
            return Err(Error::unpack(format!("v41: nested buffer of type {}", t)));
        }
        self.u.bytes()
    }
    /// One `PMIX_KVAL`.
    pub fn kval(&mut self) -> Result<(Key, Value)> {
        self.one()?;
        let k = self.u.key()?;
        Ok((k, self.u.value()?))
    }
    /// One pack of items of type `t`.
    pub fn values(&mut self, t: u16) -> Result<Vec<Value>> {
        self.u.unpack(t)
    }
    /// A pack of exactly `n` items of a struct type read by `f` (the count must be `n`).
    fn run<T>(
        &mut self,
        n: usize,
        min: usize,
        f: impl Fn(&mut Unpacker<'a>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let m = self.u.count_int(min)?;
        if m != n {
            return Err(Error::unpack(format!(
                "v41: {} items where {} announced",
                m, n
            )));
        }
        (0..n).map(|_| f(&mut self.u)).collect()
    }
    /// `SIZE n`, then (when `n > 0`) `n` procs.
    pub fn procs(&mut self) -> Result<Vec<ProcId>> {
        let n = self.size()?;
        if n == 0 {
            return Ok(Vec::new());
        }
        self.run(n, 2, |u| u.proc_id())
    }
    /// `SIZE n`, then one pack of `n` procs (packed even when `n == 0`).
    pub fn procs_always(&mut self) -> Result<Vec<ProcId>> {
        let n = self.size()?;
        self.run(n, 2, |u| u.proc_id())
    }
    /// `SIZE n`, then (when `n > 0`) `n` infos.
    pub fn infos(&mut self) -> Result<Vec<Info>> {
        let n = self.size()?;
        if n == 0 {
            return Ok(Vec::new());
        }
        self.run(n, 3, |u| u.info())
    }
    /// `SIZE n`, then (when `n > 0`) one pack of `n` items of type `t`.
    pub fn sized_values(&mut self, t: u16) -> Result<Vec<Value>> {
        let n = self.size()?;
        if n == 0 {
            return Ok(Vec::new());
        }
        let v = self.u.unpack(t)?;
        if v.len() != n {
            return Err(Error::unpack(format!(
                "v41: {} items where {} announced",
                v.len(),
                n
            )));
        }
        Ok(v)
    }
    /// KVALs to the end of the body (OpenPMIx's "unpack until read past end" loops).
    pub fn kvals_to_end(&mut self) -> Result<Vec<(Key, Value)>> {
        let mut out = Vec::new();
        while !self.u.is_empty() {
            out.push(self.kval()?);
        }
        Ok(out)
    }
    /// True when a read failed only because the body ended.
    pub fn is_past_end(e: &Error) -> bool {
        e.status() == sys::PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER
    }
}

/// Every KVAL of a nested buffer or byte object (`KVAL…` to its end).
pub fn kvals_of(bytes: &[u8]) -> Result<Vec<(Key, Value)>> {
    BodyReader::new(bytes).kvals_to_end()
}

/// `KVAL…` packed into a fresh buffer.
pub fn pack_kvals<'a>(kvs: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Result<Vec<u8>> {
    let mut w = BodyWriter::new();
    for (k, v) in kvs {
        w.kval(k, v)?;
    }
    Ok(w.finish())
}

/// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` (re-exported for readers of optional tails).
pub fn end_of_body(what: &str) -> Error {
    past_end(what)
}
