//! Schemaless protobuf wire-format decoding (no .proto needed).
//!
//! A message is a sequence of `(field number, wire type, payload)`. We keep payloads as borrowed
//! slices; callers interpret length-delimited fields as strings, bytes or nested messages.
//! Proto3 rule: an absent scalar field means 0, so accessors default to 0.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WireError {
    #[error("truncated varint at byte {0}")]
    TruncatedVarint(usize),
    #[error("varint longer than 10 bytes at byte {0}")]
    VarintTooLong(usize),
    #[error("field at byte {offset} declares {len} bytes but only {available} remain")]
    TruncatedField { offset: usize, len: u64, available: usize },
    #[error("unsupported wire type {wire_type} at byte {offset}")]
    BadWireType { offset: usize, wire_type: u8 },
    #[error("field number 0 at byte {0}")]
    ZeroField(usize),
}

/// One decoded field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl<'a> Value<'a> {
    pub fn as_u64(&self) -> u64 {
        match *self {
            Value::Varint(v) | Value::Fixed64(v) => v,
            Value::Fixed32(v) => v as u64,
            Value::Bytes(_) => 0,
        }
    }
    pub fn as_bytes(&self) -> &'a [u8] {
        match *self {
            Value::Bytes(b) => b,
            _ => &[],
        }
    }
    /// Length-delimited payload as UTF-8 (lossy: hostile bytes become U+FFFD).
    pub fn as_string(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }
    pub fn as_message(&self) -> Message<'a> {
        Message::new(self.as_bytes())
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field<'a> {
    pub number: u32,
    pub value: Value<'a>,
}

/// Read a varint at `*pos`, advancing it.
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Result<u64, WireError> {
    let start = *pos;
    let mut result: u64 = 0;
    for i in 0..10 {
        let Some(&b) = buf.get(*pos) else {
            return Err(WireError::TruncatedVarint(start));
        };
        *pos += 1;
        result |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(result);
        }
    }
    Err(WireError::VarintTooLong(start))
}

/// A protobuf message: iterate its fields in order. Iteration stops at the first error,
/// which is then available from [`FieldIter::error`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Message<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Message<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Message { bytes }
    }
    pub fn fields(&self) -> FieldIter<'a> {
        FieldIter { buf: self.bytes, pos: 0, error: None }
    }
    /// Decode every field, failing on the first malformed one.
    pub fn try_fields(&self) -> Result<Vec<Field<'a>>, WireError> {
        let mut it = self.fields();
        let v: Vec<_> = it.by_ref().collect();
        match it.error {
            Some(e) => Err(e),
            None => Ok(v),
        }
    }
    /// True if the bytes decode cleanly as a message with at least one field.
    pub fn looks_like_message(&self) -> bool {
        matches!(self.try_fields(), Ok(f) if !f.is_empty())
    }
    /// Last occurrence of field `n` (protobuf "last one wins" for scalars).
    pub fn get(&self, n: u32) -> Option<Value<'a>> {
        self.fields().filter(|f| f.number == n).last().map(|f| f.value)
    }
    /// Every occurrence of field `n`, in order.
    pub fn repeated(&self, n: u32) -> impl Iterator<Item = Value<'a>> + 'a {
        self.fields().filter(move |f| f.number == n).map(|f| f.value)
    }
    /// Scalar field `n`, 0 when absent (proto3 default).
    pub fn u64(&self, n: u32) -> u64 {
        self.get(n).map(|v| v.as_u64()).unwrap_or(0)
    }
    pub fn string(&self, n: u32) -> String {
        self.get(n).map(|v| v.as_string()).unwrap_or_default()
    }
    pub fn bytes_of(&self, n: u32) -> &'a [u8] {
        self.get(n).map(|v| v.as_bytes()).unwrap_or(&[])
    }
    pub fn message(&self, n: u32) -> Message<'a> {
        Message::new(self.bytes_of(n))
    }
    pub fn messages(&self, n: u32) -> impl Iterator<Item = Message<'a>> + 'a {
        self.repeated(n).map(|v| v.as_message())
    }
}

pub struct FieldIter<'a> {
    buf: &'a [u8],
    pos: usize,
    pub error: Option<WireError>,
}

impl<'a> FieldIter<'a> {
    fn next_field(&mut self) -> Result<Field<'a>, WireError> {
        let offset = self.pos;
        let key = read_varint(self.buf, &mut self.pos)?;
        let number = (key >> 3) as u32;
        if number == 0 {
            return Err(WireError::ZeroField(offset));
        }
        let wire_type = (key & 7) as u8;
        let value = match wire_type {
            0 => Value::Varint(read_varint(self.buf, &mut self.pos)?),
            1 => {
                let b = self.take(8, offset)?;
                Value::Fixed64(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            }
            5 => {
                let b = self.take(4, offset)?;
                Value::Fixed32(u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
            }
            2 => {
                let len = read_varint(self.buf, &mut self.pos)?;
                Value::Bytes(self.take(len, offset)?)
            }
            _ => return Err(WireError::BadWireType { offset, wire_type }),
        };
        Ok(Field { number, value })
    }

    fn take(&mut self, len: u64, offset: usize) -> Result<&'a [u8], WireError> {
        let available = self.buf.len() - self.pos;
        if len > available as u64 {
            return Err(WireError::TruncatedField { offset, len, available });
        }
        let s = &self.buf[self.pos..self.pos + len as usize];
        self.pos += len as usize;
        Ok(s)
    }
}

impl<'a> Iterator for FieldIter<'a> {
    type Item = Field<'a>;
    fn next(&mut self) -> Option<Field<'a>> {
        if self.error.is_some() || self.pos >= self.buf.len() {
            return None;
        }
        match self.next_field() {
            Ok(f) => Some(f),
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Minimal writer, used by tests and fixture generators to build messages in memory.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn varint_raw(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(b);
                break;
            }
            self.buf.push(b | 0x80);
        }
    }
    pub fn varint(&mut self, field: u32, v: u64) -> &mut Self {
        self.varint_raw((field as u64) << 3); // wire type 0 (varint)
        self.varint_raw(v);
        self
    }
    pub fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Self {
        self.varint_raw(((field as u64) << 3) | 2);
        self.varint_raw(b.len() as u64);
        self.buf.extend_from_slice(b);
        self
    }
    pub fn string(&mut self, field: u32, s: &str) -> &mut Self {
        self.bytes(field, s.as_bytes())
    }
    pub fn message(&mut self, field: u32, m: &Writer) -> &mut Self {
        self.bytes(field, &m.buf)
    }
    pub fn fixed64(&mut self, field: u32, v: u64) -> &mut Self {
        self.varint_raw(((field as u64) << 3) | 1);
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn finish(&self) -> Vec<u8> {
        self.buf.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_nested() {
        let mut inner = Writer::new();
        inner.varint(1, 300).string(2, "sg00");
        let mut outer = Writer::new();
        outer.string(1, "net").message(4, &inner).varint(5, 1).fixed64(6, u64::MAX);
        let bytes = outer.finish();
        let m = Message::new(&bytes);
        assert_eq!(m.string(1), "net");
        assert_eq!(m.message(4).u64(1), 300);
        assert_eq!(m.message(4).string(2), "sg00");
        assert_eq!(m.u64(5), 1);
        assert_eq!(m.u64(6), u64::MAX);
        assert_eq!(m.u64(99), 0);
        assert!(m.looks_like_message());
    }

    #[test]
    fn truncated_is_error_not_panic() {
        let mut w = Writer::new();
        w.string(1, "hello world");
        let bytes = w.finish();
        for cut in 0..bytes.len() {
            let m = Message::new(&bytes[..cut]);
            let _ = m.try_fields();
            let _ = m.string(1);
        }
        assert!(Message::new(&bytes[..5]).try_fields().is_err());
        assert!(Message::new(&[0xff; 12]).try_fields().is_err());
    }
}
