//! Just enough JSON to read the test data (the rules crate has no dependencies): objects,
//! arrays, strings with simple escapes, numbers, booleans and null.

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses a whole document.
    pub(super) fn parse(text: &str) -> Result<Json, String> {
        let mut reader = Reader {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = reader.value()?;
        reader.skip_space();
        match reader.at == reader.bytes.len() {
            true => Ok(value),
            false => Err(format!("trailing text at byte {}", reader.at)),
        }
    }

    /// The member `key` of an object.
    pub(super) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub(super) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) if n.fract() == 0.0 && *n >= 0.0 => format!("{n}").parse().ok(),
            _ => None,
        }
    }
}

struct Reader<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn value(&mut self) -> Result<Json, String> {
        self.skip_space();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(_) => self.number(),
            None => Err("unexpected end".into()),
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        let mut members = Vec::new();
        self.at += 1;
        while self.next_item(b'}')? {
            let key = self.string()?;
            self.skip_space();
            self.expect(b':')?;
            members.push((key, self.value()?));
        }
        Ok(Json::Object(members))
    }

    fn array(&mut self) -> Result<Json, String> {
        let mut items = Vec::new();
        self.at += 1;
        while self.next_item(b']')? {
            items.push(self.value()?);
        }
        Ok(Json::Array(items))
    }

    /// Before each item: false (and consumed) at the closing bracket, else skips a comma.
    fn next_item(&mut self, close: u8) -> Result<bool, String> {
        self.skip_space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(false);
        }
        if self.peek() == Some(b',') {
            self.at += 1;
            self.skip_space();
        }
        match self.peek() {
            Some(_) => Ok(true),
            None => Err("unexpected end".into()),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            let byte = self.bump()?;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => out.extend(self.escape()?.encode_utf8(&mut [0; 4]).as_bytes()),
                _ => out.push(byte),
            }
        }
    }

    fn escape(&mut self) -> Result<char, String> {
        Ok(match self.bump()? {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => {
                let hex =
                    std::str::from_utf8(self.bytes.get(self.at..self.at + 4).ok_or("short \\u")?)
                        .map_err(|e| e.to_string())?;
                self.at += 4;
                let code = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                char::from_u32(code).unwrap_or('\u{fffd}')
            }
            other => char::from(other),
        })
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?;
        text.parse()
            .map(Json::Number)
            .map_err(|_| format!("bad number {text:?} at byte {start}"))
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if !self.bytes[self.at..].starts_with(word.as_bytes()) {
            return Err(format!("expected {word} at byte {}", self.at));
        }
        self.at += word.len();
        Ok(value)
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        match self.bump()? == byte {
            true => Ok(()),
            false => Err(format!(
                "expected {:?} at byte {}",
                char::from(byte),
                self.at - 1
            )),
        }
    }

    fn bump(&mut self) -> Result<u8, String> {
        let byte = self.peek().ok_or("unexpected end")?;
        self.at += 1;
        Ok(byte)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }
}

#[test]
fn reads_the_shapes_the_data_uses() {
    let doc = Json::parse(r#"[{"a": [1, "x\"y", true, null], "b": {"c": -2.5e0}}]"#).unwrap();
    let first = &doc.as_array().unwrap()[0];
    let a = first.get("a").unwrap().as_array().unwrap();
    assert_eq!(a[0].as_u64(), Some(1));
    assert_eq!(a[1].as_str(), Some("x\"y"));
    assert_eq!(a[2..], [Json::Bool(true), Json::Null]);
    assert_eq!(first.get("b").unwrap().get("c"), Some(&Json::Number(-2.5)));
    assert!(Json::parse("[1,").is_err());
}
