//! TLS for `serve`: a self-signed certificate made in the test, a client that trusts it, and
//! the refusal to serve a non-loopback address in clear text.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use referee::log::SledLog;
use referee::service::proto::{self, referee_client::RefereeClient};
use referee::service::{Service, Tls, serve_with};
use tonic::transport::{Certificate, Channel, ClientTlsConfig};

fn self_signed() -> (String, String) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).expect("cert");
    (made.cert.pem(), made.signing_key.serialize_pem())
}

async fn tls_client(
    addr: std::net::SocketAddr,
    ca_pem: &str,
) -> Result<RefereeClient<Channel>, String> {
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca_pem))
        .domain_name("localhost");
    let channel = Channel::from_shared(format!("https://{addr}"))
        .expect("uri")
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(RefereeClient::new(channel))
}

#[tokio::test]
async fn the_service_speaks_tls_to_a_client_that_trusts_its_certificate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (cert, key) = self_signed();
    let log = SledLog::open(dir.path()).expect("log");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let tls = Tls {
        cert_pem: cert.clone().into_bytes(),
        key_pem: key.into_bytes(),
    };
    let server = tokio::spawn(serve_with(listener, Service::new(log), Some(tls), async {
        let _ = stopped.await;
    }));

    let mut client = tls_client(addr, &cert).await.expect("TLS handshake");
    let games = client
        .list_games(proto::ListGamesRequest::default())
        .await
        .expect("a call over TLS");
    assert!(games.into_inner().games.is_empty());

    let (other_cert, _) = self_signed();
    let untrusted = match tls_client(addr, &other_cert).await {
        Err(_) => true,
        Ok(mut c) => c
            .list_games(proto::ListGamesRequest::default())
            .await
            .is_err(),
    };
    assert!(
        untrusted,
        "a client that does not trust the certificate gets nowhere"
    );
    let plain = match RefereeClient::connect(format!("http://{addr}")).await {
        Err(_) => true,
        Ok(mut c) => c
            .list_games(proto::ListGamesRequest::default())
            .await
            .is_err(),
    };
    assert!(plain, "a plain-text client gets nowhere");
    let _ = stop.send(());
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), server).await;
}

fn serve(data: &Path, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["serve", "--data", data.to_str().expect("utf-8")])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn referee serve")
}

#[tokio::test]
async fn serve_refuses_a_public_address_in_clear_text_but_not_with_tls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = serve(dir.path(), &["--addr", "0.0.0.0:0"])
        .wait_with_output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("refusing to serve on 0.0.0.0:0 without TLS")
            && stderr.contains("--insecure"),
        "{stderr}"
    );
    let (cert, key) = self_signed();
    let cert_file = dir.path().join("cert.pem");
    let key_file = dir.path().join("key.pem");
    std::fs::write(&cert_file, &cert).expect("write");
    std::fs::write(&key_file, key).expect("write");
    let out = serve(
        dir.path(),
        &[
            "--addr",
            "0.0.0.0:0",
            "--tls-cert",
            cert_file.to_str().expect("utf-8"),
        ],
    )
    .wait_with_output()
    .expect("run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a certificate without its key is refused"
    );

    let mut child = serve(
        dir.path(),
        &[
            "--addr",
            "0.0.0.0:0",
            "--tls-cert",
            cert_file.to_str().expect("utf-8"),
            "--tls-key",
            key_file.to_str().expect("utf-8"),
        ],
    );
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    assert!(line.starts_with("referee listening on 0.0.0.0:"), "{line}");
    let port: u16 = line
        .trim()
        .rsplit(':')
        .next()
        .expect("port")
        .parse()
        .expect("a port");
    let answered = match tls_client(([127, 0, 0, 1], port).into(), &cert).await {
        Ok(mut c) => c
            .list_games(proto::ListGamesRequest::default())
            .await
            .map_err(|e| e.to_string()),
        Err(e) => Err(e),
    };
    child.kill().expect("kill the server this test started");
    let _ = child.wait();
    answered.expect("the server started with TLS answers a TLS client");
}
