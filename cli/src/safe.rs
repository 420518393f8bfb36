//! Output that cannot drive a terminal or a spreadsheet (issue 7 §4). Names, warnings and error
//! messages come from the input file: an event called `\x1b]0;pwned\x07` must not retitle the
//! terminal, and a CSV cell `=HYPERLINK(...)` must not become a live formula.
//!
//! - [`text`]: control characters (C0, DEL, C1) and the Unicode bidirectional overrides
//!   (U+202A..U+202E, U+2066..U+2069, which reorder what the reader sees) become `\u{1b}`-style
//!   escapes. Backslashes are left alone, so a name that already spells `\u{1b}` reads the same.
//! - [`csv_field`]: the same escaping, then a cell that a spreadsheet would evaluate (starting
//!   with `=`, `+`, `-`, `@`, tab or CR) gets a leading `'`, then RFC 4180 quoting.

use std::borrow::Cow;

fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character and bidi override written as `\u{..}`.
pub fn text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One CSV cell holding text from the file: escaped ([`text`]), formula-neutralised, quoted
/// when it holds a comma or a quote (RFC 4180). Numbers written by the CLI itself do not go
/// through here (a negative time stays a number).
pub fn csv_field(s: &str) -> String {
    let formula = matches!(s.chars().next(), Some('=' | '+' | '-' | '@' | '\t' | '\r'));
    let mut cell = text(s).into_owned();
    if formula {
        cell.insert(0, '\'');
    }
    if cell.contains([',', '"']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(text("plain name"), "plain name");
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(text("\u{1b}]0;pwned\u{7}x"), "\\u{1b}]0;pwned\\u{7}x");
        assert_eq!(text("a\nb\tc\rd\u{7f}e\u{9b}f"), "a\\u{a}b\\u{9}c\\u{d}d\\u{7f}e\\u{9b}f");
        assert_eq!(text("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(text("µs → ok, 日本"), "µs → ok, 日本");
    }

    #[test]
    fn csv_cells_are_inert() {
        assert_eq!(csv_field("matmul"), "matmul");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(
            csv_field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(csv_field("=1+1"), "'=1+1");
        assert_eq!(csv_field("+1"), "'+1");
        assert_eq!(csv_field("-1"), "'-1");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("\tx"), "'\\u{9}x");
        assert_eq!(csv_field("\r=1"), "'\\u{d}=1");
        assert_eq!(csv_field("a\nb"), "a\\u{a}b");
        assert_eq!(csv_field("x=1"), "x=1");
        assert_eq!(csv_field(""), "");
        assert_eq!(csv_field("\u{1b}[2J"), "\\u{1b}[2J");
    }
}
