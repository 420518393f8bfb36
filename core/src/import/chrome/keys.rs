//! The keys every part of the converter shares: pid/tid, async and flow ids, the dialect.

use crate::strings::StrId;

/// A pid or tid: a number or (Kineto "Spans", TP feature) a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Int(i64),
    Str(StrId),
}

/// An async / flow id: number and string ids are distinct, as in TP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdKey {
    None,
    Int(i64),
    Str(StrId),
}

/// Which producer wrote the file, as far as the content tells.
#[derive(Debug, Default, Clone, Copy)]
pub struct Dialect {
    pub kineto: bool,
    pub furiosa: bool,
}
