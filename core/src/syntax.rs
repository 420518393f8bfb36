//! A small Python tokenizer for syntax highlighting (the code view): keywords, strings (with
//! prefixes, escapes and triple quotes spanning lines), comments, numbers, decorators and the
//! names after `def`/`class`. Not a parser: anything else is plain text.
//!
//! Work is per line, so a viewer can highlight only the lines it shows: [`line_states`] makes
//! one pass over the whole text to know which lines start inside a triple-quoted string, then
//! [`tokenize_line`] colours one line from its start state. Token ranges are byte ranges on
//! char boundaries (every delimiter is ASCII; non-ASCII bytes count as identifier bytes).

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    Keyword,
    /// `True`, `False`, `None`, `self`, `cls` and common builtins.
    Constant,
    String,
    Comment,
    Number,
    Decorator,
    /// The name defined by `def` or `class`.
    Definition,
}

/// Where a line starts: in code, or inside a triple-quoted string opened by `quote` (`"` or `'`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LineState {
    #[default]
    Code,
    InTriple(u8),
}

const KEYWORDS: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
    "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "match", "case",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];
const CONSTANTS: &[&str] = &[
    "True",
    "False",
    "None",
    "self",
    "cls",
    "print",
    "len",
    "range",
    "int",
    "float",
    "str",
    "list",
    "dict",
    "tuple",
    "set",
    "super",
    "isinstance",
    "enumerate",
    "zip",
];

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// End of a string body starting at `i` (after the opening quotes): the index after the closing
/// quote(s) and whether it closed on this line.
fn string_end(s: &[u8], mut i: usize, quote: u8, triple: bool) -> (usize, bool) {
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            q if q == quote => {
                if !triple {
                    return (i + 1, true);
                }
                if s.get(i + 1) == Some(&quote) && s.get(i + 2) == Some(&quote) {
                    return (i + 3, true);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (s.len(), false)
}

/// Tokens of one line (without its newline) and the state the next line starts in.
pub fn tokenize_line(line: &str, state: LineState) -> (Vec<(Range<usize>, Tok)>, LineState) {
    let s = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    if let LineState::InTriple(q) = state {
        let (end, closed) = string_end(s, 0, q, true);
        out.push((0..end, Tok::String));
        if !closed {
            return (out, state);
        }
        i = end;
    }
    let first_code = s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len());
    let mut prev_word: Option<&str> = None;
    while i < s.len() {
        let b = s[i];
        if b == b'#' {
            out.push((i..s.len(), Tok::Comment));
            break;
        }
        if b == b'"' || b == b'\'' {
            let triple = s.get(i + 1) == Some(&b) && s.get(i + 2) == Some(&b);
            let body = if triple { i + 3 } else { i + 1 };
            let (end, closed) = string_end(s, body, b, triple);
            out.push((i..end, Tok::String));
            if triple && !closed {
                return (out, LineState::InTriple(b));
            }
            i = end;
            prev_word = None;
            continue;
        }
        if b == b'@' && i == first_code {
            let mut j = i + 1;
            while j < s.len() && (ident_byte(s[j]) || s[j] == b'.') {
                j += 1;
            }
            out.push((i..j, Tok::Decorator));
            i = j;
            continue;
        }
        if b.is_ascii_digit() || (b == b'.' && s.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let mut j = i + 1;
            while j < s.len() {
                let c = s[j];
                let exp_sign =
                    (c == b'+' || c == b'-') && matches!(s[j - 1], b'e' | b'E') && !is_hex(&s[i..j]);
                if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exp_sign {
                    j += 1;
                } else {
                    break;
                }
            }
            out.push((i..j, Tok::Number));
            i = j;
            prev_word = None;
            continue;
        }
        if ident_byte(b) {
            let mut j = i + 1;
            while j < s.len() && ident_byte(s[j]) {
                j += 1;
            }
            let word = line.get(i..j).unwrap_or("");
            // a string prefix: r"…", b'…', f"""…""", rb"…"
            if j - i <= 2
                && word.bytes().all(|c| matches!(c.to_ascii_lowercase(), b'r' | b'b' | b'f' | b'u'))
                && matches!(s.get(j), Some(b'"') | Some(b'\''))
            {
                let q = s[j];
                let triple = s.get(j + 1) == Some(&q) && s.get(j + 2) == Some(&q);
                let body = if triple { j + 3 } else { j + 1 };
                let (end, closed) = string_end(s, body, q, triple);
                out.push((i..end, Tok::String));
                if triple && !closed {
                    return (out, LineState::InTriple(q));
                }
                i = end;
                prev_word = None;
                continue;
            }
            let tok = if matches!(prev_word, Some("def") | Some("class")) {
                Some(Tok::Definition)
            } else if KEYWORDS.contains(&word) {
                Some(Tok::Keyword)
            } else if CONSTANTS.contains(&word) {
                Some(Tok::Constant)
            } else {
                None
            };
            if let Some(t) = tok {
                out.push((i..j, t));
            }
            prev_word = Some(word);
            i = j;
            continue;
        }
        if !b.is_ascii_whitespace() {
            prev_word = None;
        }
        i += 1;
    }
    (out, LineState::Code)
}

fn is_hex(num: &[u8]) -> bool {
    num.len() >= 2 && num[0] == b'0' && matches!(num[1], b'x' | b'X')
}

/// The state each line of `text` starts in (one entry per line of `text.lines()`).
pub fn line_states(text: &str) -> Vec<LineState> {
    let mut out = Vec::new();
    let mut st = LineState::Code;
    for line in text.lines() {
        out.push(st);
        st = tokenize_line(line, st).1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(line: &str) -> Vec<(&str, Tok)> {
        tokenize_line(line, LineState::Code).0.into_iter().map(|(r, t)| (&line[r], t)).collect()
    }

    #[test]
    fn keywords_strings_comments_numbers() {
        assert_eq!(
            toks("    return x + 1.5e-3  # done"),
            vec![("return", Tok::Keyword), ("1.5e-3", Tok::Number), ("# done", Tok::Comment)]
        );
        assert_eq!(
            toks("s = 'a # b' if x else None"),
            vec![
                ("'a # b'", Tok::String),
                ("if", Tok::Keyword),
                ("else", Tok::Keyword),
                ("None", Tok::Constant)
            ]
        );
        assert_eq!(
            toks(r#"p = rb"\"q" + f'{x}'"#),
            vec![(r#"rb"\"q""#, Tok::String), ("f'{x}'", Tok::String)]
        );
        assert_eq!(toks("n = 0x1F + 3_000 - x1"), vec![("0x1F", Tok::Number), ("3_000", Tok::Number)]);
        assert_eq!(toks("    @torch.jit.script"), vec![("@torch.jit.script", Tok::Decorator)]);
        assert_eq!(toks("x = a @ b"), vec![]);
        assert_eq!(
            toks("def forward(self, x):"),
            vec![("def", Tok::Keyword), ("forward", Tok::Definition), ("self", Tok::Constant)]
        );
        // an unterminated single-quoted string ends at the end of the line
        assert_eq!(tokenize_line("s = 'abc", LineState::Code).1, LineState::Code);
        // non-ASCII text never splits a character
        assert_eq!(toks("é = 'ü' # ö"), vec![("'ü'", Tok::String), ("# ö", Tok::Comment)]);
    }

    #[test]
    fn triple_quotes_span_lines() {
        let text = "x = 1\ns = \"\"\"doc\n# not a comment\nend\"\"\" + 'y'\ndef f(): pass\n";
        let st = line_states(text);
        assert_eq!(
            st,
            vec![
                LineState::Code,
                LineState::Code,
                LineState::InTriple(b'"'),
                LineState::InTriple(b'"'),
                LineState::Code
            ]
        );
        let l3: Vec<&str> = text.lines().collect();
        let (t, _) = tokenize_line(l3[2], st[2]);
        assert_eq!(t, vec![(0..l3[2].len(), Tok::String)]);
        let (t, next) = tokenize_line(l3[3], st[3]);
        assert_eq!(next, LineState::Code);
        assert_eq!(t, vec![(0..6, Tok::String), (9..12, Tok::String)]);
    }
}
