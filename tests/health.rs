//! `referee health`: the container's health check, against a running server.

use std::process::{Command, Output};

use crate::common::TestServer;

fn health(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .arg("health")
        .args(args)
        .output()
        .expect("run")
}

#[tokio::test]
async fn health_exits_0_for_a_serving_server_and_1_for_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(dir.path()).await;
    let addr = server.addr.to_string();
    let probe = tokio::task::spawn_blocking(move || health(&["--addr", &addr]));
    let serving = probe.await.expect("probe");
    assert_eq!(serving.status.code(), Some(0), "{serving:?}");
    assert_eq!(String::from_utf8_lossy(&serving.stdout), "SERVING\n");
    let addr = server.addr.to_string();
    let unknown = tokio::task::spawn_blocking(move || {
        health(&["--addr", &addr, "--service", "no.such.Service"])
    });
    let unknown = unknown.await.expect("probe");
    assert_eq!(unknown.status.code(), Some(1), "{unknown:?}");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("NotFound"));
    let addr = server.addr.to_string();
    server.stop().await;
    let gone = tokio::task::spawn_blocking(move || health(&["--addr", &addr]));
    let gone = gone.await.expect("probe");
    assert_eq!(gone.status.code(), Some(1), "{gone:?}");
    let missing = health(&["--tls-ca", "/nonexistent/cert.pem"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/cert.pem"));
}
