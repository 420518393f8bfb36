//! A read-only SQLite database opened from bytes, and reading rows by column name.

use loupe_core::import::ImportError;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, MAIN_DB};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Virtual-machine steps per progress callback.
const OPS_PER_CALLBACK: i32 = 10_000;
/// Work budget: VM steps allowed per input byte (a whole-table scan costs a few steps per
/// byte; the importers only scan tables, never join), plus a floor for small files.
const OPS_PER_BYTE: u64 = 400;
const OPS_FLOOR: u64 = 200_000_000;

/// An open database and the names of its tables.
pub struct Db {
    conn: Connection,
    tables: HashMap<String, String>,
    format: &'static str,
}

/// A value read from a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Val {
    pub fn int(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Real(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
            Val::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    pub fn real(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Real(f) => Some(*f),
            Val::Text(s) => s.trim().parse().ok(),
            Val::Null => None,
        }
    }
    pub fn text(&self) -> Option<&str> {
        match self {
            Val::Text(s) => Some(s),
            _ => None,
        }
    }
    /// As display text (numbers written out; empty for NULL).
    pub fn display(&self) -> String {
        match self {
            Val::Null => String::new(),
            Val::Int(i) => i.to_string(),
            Val::Real(f) => f.to_string(),
            Val::Text(s) => s.clone(),
        }
    }
}

/// One row: values in the order of the requested columns (`Null` for a column the table lacks).
pub type Row = Vec<Val>;

fn sql_err(format: &'static str, e: rusqlite::Error) -> ImportError {
    ImportError::Invalid { format, message: format!("SQLite: {e}") }
}

impl Db {
    /// Open `bytes` as a read-only in-memory database. A file that SQLite rejects at once is
    /// [`ImportError::Invalid`]; damage found later (a corrupt page) fails the query that hits it.
    pub fn open(bytes: &[u8], format: &'static str) -> Result<Db, ImportError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_in_memory_with_flags(flags).map_err(|e| sql_err(format, e))?;
        conn.deserialize_read_exact(MAIN_DB, bytes, bytes.len(), true).map_err(|e| sql_err(format, e))?;
        let budget =
            (bytes.len() as u64).saturating_mul(OPS_PER_BYTE).max(OPS_FLOOR) / OPS_PER_CALLBACK as u64;
        let used = Arc::new(AtomicU64::new(0));
        let u = Arc::clone(&used);
        conn.progress_handler(OPS_PER_CALLBACK, Some(move || u.fetch_add(1, Ordering::Relaxed) >= budget))
            .map_err(|e| sql_err(format, e))?;
        // no writes, and functions in the schema (views, generated columns) run only if harmless
        conn.execute_batch("PRAGMA query_only = ON; PRAGMA trusted_schema = OFF;")
            .map_err(|e| sql_err(format, e))?;
        let mut tables = HashMap::new();
        {
            let mut st = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(|e| sql_err(format, e))?;
            let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(|e| sql_err(format, e))?;
            for n in rows {
                let n = n.map_err(|e| sql_err(format, e))?;
                tables.insert(n.to_ascii_lowercase(), n);
            }
        }
        Ok(Db { conn, tables, format })
    }

    pub fn format(&self) -> &'static str {
        self.format
    }

    /// The table's name as stored, when a table of that name (any case) exists.
    pub fn table(&self, name: &str) -> Option<&str> {
        self.tables.get(&name.to_ascii_lowercase()).map(|s| s.as_str())
    }
    pub fn has_table(&self, name: &str) -> bool {
        self.table(name).is_some()
    }
    /// Names of every table.
    pub fn table_names(&self) -> impl Iterator<Item = &str> {
        self.tables.values().map(|s| s.as_str())
    }

    /// The columns of a table (lower-cased name → position), `None` when there is no such table.
    pub fn columns(&self, table: &str) -> Result<Option<Vec<String>>, ImportError> {
        let Some(t) = self.table(table) else { return Ok(None) };
        let sql = format!("PRAGMA table_info({})", quote(t));
        let mut st = self.conn.prepare(&sql).map_err(|e| sql_err(self.format, e))?;
        let rows = st.query_map([], |r| r.get::<_, String>(1)).map_err(|e| sql_err(self.format, e))?;
        let mut out = Vec::new();
        for r in rows {
            out.push(r.map_err(|e| sql_err(self.format, e))?);
        }
        Ok(Some(out))
    }

    /// Scan `table`, calling `f` with the values of `wanted` columns (`Null` for those the table
    /// lacks; their names are returned in `missing`). `None` when the table does not exist.
    /// Stops early when `f` returns `false`.
    pub fn scan(
        &self,
        table: &str,
        wanted: &[&str],
        mut f: impl FnMut(&[Val]) -> bool,
    ) -> Result<Option<Vec<String>>, ImportError> {
        let Some(cols) = self.columns(table)? else { return Ok(None) };
        let Some(t) = self.table(table) else { return Ok(None) };
        let lower: Vec<String> = cols.iter().map(|c| c.to_ascii_lowercase()).collect();
        let mut select = Vec::new();
        let mut slot = Vec::new(); // wanted index → position in the select list
        let mut missing = Vec::new();
        for w in wanted {
            match lower.iter().position(|c| *c == w.to_ascii_lowercase()) {
                Some(p) => {
                    slot.push(Some(select.len()));
                    select.push(quote(&cols[p]));
                }
                None => {
                    slot.push(None);
                    missing.push(w.to_string());
                }
            }
        }
        if select.is_empty() {
            select.push("NULL".to_string());
        }
        let sql = format!("SELECT {} FROM {}", select.join(", "), quote(t));
        let mut st = self.conn.prepare(&sql).map_err(|e| sql_err(self.format, e))?;
        let mut rows = st.query([]).map_err(|e| sql_err(self.format, e))?;
        let mut buf: Vec<Val> = vec![Val::Null; wanted.len()];
        while let Some(r) = rows.next().map_err(|e| sql_err(self.format, e))? {
            for (i, s) in slot.iter().enumerate() {
                buf[i] = match s {
                    Some(p) => match r.get_ref(*p).map_err(|e| sql_err(self.format, e))? {
                        ValueRef::Null => Val::Null,
                        ValueRef::Integer(i) => Val::Int(i),
                        ValueRef::Real(f) => Val::Real(f),
                        ValueRef::Text(t) => Val::Text(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Blob(b) => Val::Text(String::from_utf8_lossy(b).into_owned()),
                    },
                    None => Val::Null,
                };
            }
            if !f(&buf) {
                break;
            }
        }
        Ok(Some(missing))
    }

    /// `id → text` of a two-column string table (`StringIds(id, value)`, `dictionary(id, string)`).
    pub fn strings(&self, table: &str, id: &str, value: &str) -> Result<HashMap<i64, String>, ImportError> {
        let mut out = HashMap::new();
        self.scan(table, &[id, value], |r| {
            if let (Some(i), Some(s)) = (r[0].int(), r[1].text()) {
                out.insert(i, s.to_string());
            }
            true
        })?;
        Ok(out)
    }
}

/// An SQL identifier in double quotes.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
