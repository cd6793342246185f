//! A small WebDriver client for the console's browser tests: Debian's `chromedriver` driving
//! headless `chromium`, spoken to in plain HTTP/1.1 JSON on loopback (one connection per
//! command), so the tests need no browser-automation crate.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key WebDriver names an element reference with (W3C WebDriver, "elements").
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian puts the browser and its driver.
pub fn browser_paths() -> Option<(PathBuf, PathBuf)> {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())?;
    let driver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())?;
    Some((chromium, driver))
}

/// A running `chromedriver` and one browser session; both end on drop.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    /// Starts the driver on a free loopback port and opens a headless session.
    pub fn start(chromium: &Path, driver: &Path) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut browser = Browser {
            driver: child,
            port,
            session: String::new(),
        };
        browser.wait_ready();
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"]
        }}}});
        let reply = browser.call("POST", "/session", Some(&caps));
        browser.session = reply["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {reply}"))
            .to_string();
        browser
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(reply) = self.try_call("GET", "/status", None)
                && reply["value"]["ready"] == json!(true)
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("chromedriver did not become ready on port {}", self.port);
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|e| panic!("webdriver {method} {path}: {e}"))
    }

    fn try_call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let payload = body.map(Value::to_string).unwrap_or_default();
        let addr = format!("127.0.0.1:{}", self.port);
        let json = [("Content-Type", "application/json")];
        let answer = super::http::request(&addr, method, path, &json, &payload)?;
        let value: Value =
            serde_json::from_str(&answer.body).map_err(|e| format!("{e}: {}", answer.body))?;
        if let Some(error) = value["value"]["error"].as_str() {
            return Err(format!("{error}: {}", value["value"]["message"]));
        }
        Ok(value)
    }

    fn session_call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body)["value"].clone()
    }

    pub fn open(&self, url: &str) {
        self.session_call("POST", "/url", Some(&json!({ "url": url })));
    }

    /// Runs `script` in the page (its `return` value comes back as JSON).
    pub fn eval(&self, script: &str) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(&json!({ "script": script, "args": [] })),
        )
    }

    /// Waits until `script` returns a truthy value; panics with `what` after `limit`.
    pub fn wait_for(&self, what: &str, script: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let value = self.eval(script);
            if !matches!(value, Value::Null | Value::Bool(false))
                && value != json!("")
                && value != json!(0)
            {
                return value;
            }
            if Instant::now() > deadline {
                let page = self.eval("return document.body.innerText.slice(0, 1500) + [...document.querySelectorAll('[class*=alert]')].map(e => e.className).join()");
                panic!("{what}: not seen within {limit:?}; the page:\n{page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the first element `css` selects.
    pub fn click(&self, css: &str) {
        let found = self.session_call(
            "POST",
            "/element",
            Some(&json!({"using": "css selector", "value": css})),
        );
        let id = found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string();
        self.session_call("POST", &format!("/element/{id}/click"), Some(&json!({})));
    }

    /// Sets the window's outer size (a phone: 390 x 844; a hall screen: 1920 x 1080).
    pub fn resize(&self, width: u32, height: u32) {
        self.session_call(
            "POST",
            "/window/rect",
            Some(&json!({ "width": width, "height": height })),
        );
    }

    /// Saves a PNG of the page to `path`.
    pub fn screenshot(&self, path: &Path) {
        let data = self.session_call("GET", "/screenshot", None);
        let png = base64_decode(data.as_str().expect("screenshot data"));
        std::fs::write(path, png).expect("write screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.try_call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Standard base64 (the screenshot's encoding), without a crate for one call.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc: u32 = 0;
        for (i, d) in chunk.iter().enumerate() {
            acc |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
