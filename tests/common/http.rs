//! A minimal HTTP/1.1 client for loopback servers in tests (the console, chromedriver): one
//! connection per request; the answer is read by its Content-Length (chromedriver keeps the
//! connection open despite `Connection: close`), chunk by chunk, or to the end. The tests
//! need no HTTP client crate.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// An answer: status code, headers as one lower-cased block, body.
pub struct Answer {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

/// Sends one request to `addr` (`127.0.0.1:PORT`) and reads the whole answer.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<Answer, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| e.to_string())?;
    let (status, headers, body) = read_answer(&mut stream)?;
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// Reads the status line and headers, then the body as the headers say.
fn read_answer(stream: &mut TcpStream) -> Result<(u16, String, String), String> {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).map_err(|e| e.to_string())? {
            0 => return Err("the connection closed inside the header".into()),
            _ => raw.push(byte[0]),
        }
    }
    let head = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    let length = head.lines().find_map(|l| {
        let value = l.strip_prefix("content-length:")?;
        value.trim().parse::<usize>().ok()
    });
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            stream.read_exact(&mut body).map_err(|e| e.to_string())?;
        }
        None => {
            stream.read_to_end(&mut body).map_err(|e| e.to_string())?;
        }
    }
    let mut body = String::from_utf8_lossy(&body).into_owned();
    if head.contains("transfer-encoding: chunked") {
        body = unchunk(&body);
    }
    Ok((status, head, body))
}

fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}
