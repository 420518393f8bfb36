//! Time spans as `(start, end)` pairs: their union, for the model and the analyses alike.

/// The union of `spans` (any order): sorted, merged where they touch or overlap.
pub fn union(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    spans.sort_unstable();
    union_of_sorted(&spans).collect()
}

/// The union of spans already sorted by start, as it goes (no vector of its own).
pub fn union_of_sorted(sorted: &[(i64, i64)]) -> impl Iterator<Item = (i64, i64)> + '_ {
    let mut rest = sorted.iter().copied().peekable();
    std::iter::from_fn(move || {
        let (s, mut e) = rest.next()?;
        while let Some(&(s2, e2)) = rest.peek() {
            if s2 > e {
                break;
            }
            e = e.max(e2);
            rest.next();
        }
        Some((s, e))
    })
}
