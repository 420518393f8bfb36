//! Lookup of subgraphs by name, shared by the NEFF ([`super::Neff`]) and its debug info.

use std::collections::HashMap;

/// Position lookup by name: exact first, then ASCII case-insensitive; the first occurrence wins
/// (as a linear `find` would). Falls back to a scan when the list no longer has the indexed length.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    exact: HashMap<String, usize>,
    folded: HashMap<String, usize>,
    len: usize,
}

impl NameIndex {
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NameIndex {
        let mut ix = NameIndex::default();
        for (i, n) in names.into_iter().enumerate() {
            ix.exact.entry(n.to_string()).or_insert(i);
            ix.folded.entry(n.to_ascii_lowercase()).or_insert(i);
            ix.len = i + 1;
        }
        ix
    }

    /// Position of `name` in `names` (the list this index was built from).
    pub(crate) fn find<'a>(
        &self,
        names: impl ExactSizeIterator<Item = &'a str> + Clone,
        name: &str,
    ) -> Option<usize> {
        if self.len == names.len() && self.len > 0 {
            return self.exact.get(name).or_else(|| self.folded.get(&name.to_ascii_lowercase())).copied();
        }
        names
            .clone()
            .position(|n| n == name)
            .or_else(|| names.clone().position(|n| n.eq_ignore_ascii_case(name)))
    }
}
