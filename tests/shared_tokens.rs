//! Tokens and the audit signing key shared by the instances of one PostgreSQL log (issue 33):
//! a token issued on one instance is accepted by the other, a revocation on one is refused by
//! the other within a second, and both sign audit bundles with one key. Two `referee serve
//! --store` processes with data directories of their own, on one database.

use std::time::{Duration, Instant};

use referee::service::proto::{self, referee_client::RefereeClient};
use tonic::Code;
use tonic::transport::Channel;

use crate::common::postgres::Cluster;
use crate::common::process::ServeProcess;

async fn client(url: &str) -> RefereeClient<Channel> {
    RefereeClient::connect(url.to_owned())
        .await
        .expect("connect")
}

/// The audit key as `token` sees it on `server`: Ok(public key) or the refusal's code.
async fn audit_key(c: &mut RefereeClient<Channel>, token: &str) -> Result<String, Code> {
    let mut request = tonic::Request::new(proto::GetAuditKeyRequest {});
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    c.get_audit_key(request)
        .await
        .map(|r| r.into_inner().public_key)
        .map_err(|status| status.code())
}

/// Polls until `token` gets `want` from `c`; how long it took.
async fn until(c: &mut RefereeClient<Channel>, token: &str, want: bool) -> Duration {
    let start = Instant::now();
    while audit_key(c, token).await.is_ok() != want {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the other instance did not {} the token within 10 s",
            if want { "accept" } else { "refuse" }
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_issued_or_revoked_on_one_instance_counts_on_every_instance() {
    let test = "shared_tokens::a_token_issued_or_revoked_on_one_instance_counts_on_every_instance";
    let Some(cluster) = Cluster::start(test) else {
        return;
    };
    let url = cluster.url();
    let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // `ServeProcess` keeps its data in DIR/data.
    let (a_data, b_data) = (a_dir.path().join("data"), b_dir.path().join("data"));
    // Issued on A before either starts; B's data directory has no token at all.
    let fed = crate::common::issue(&a_data, &["--id", "fed", "--role", "auditor"]);
    let a = ServeProcess::start(a_dir.path(), &["--store", &url]);
    let b = ServeProcess::start(b_dir.path(), &["--store", &url]);
    let (mut on_a, mut on_b) = (client(&a.url).await, client(&b.url).await);

    // B took A's token before its first call: access control is on there, and the token valid.
    let key_b = audit_key(&mut on_b, &fed).await.expect("A's token on B");
    let key_a = audit_key(&mut on_a, &fed).await.expect("A's token on A");
    assert_eq!(key_a, key_b, "both instances sign with one key");
    let anonymous = on_b.list_games(proto::ListGamesRequest::default()).await;
    let b_tokens = std::fs::read_to_string(b_data.join("tokens.jsonl")).unwrap_or_default();
    assert_eq!(
        anonymous.map(|_| ()).map_err(|s| s.code()),
        Err(Code::Unauthenticated),
        "access control on B; B's token file: {b_tokens:?}; B said: {}",
        b.stderr()
    );

    // Issued on B while both run: accepted on A.
    let late = crate::common::issue(&b_data, &["--id", "late", "--role", "auditor"]);
    let accepted = until(&mut on_a, &late, true).await;

    // Revoked on A: refused on B within a second.
    let revoked = crate::common::referee(&[
        "token",
        "revoke",
        "fed",
        "--data",
        a_data.to_str().expect("utf-8"),
    ]);
    assert!(revoked.status.success(), "{revoked:?}");
    let refused = until(&mut on_b, &fed, false).await;
    println!(
        "shared_tokens: a token issued on B accepted on A after {accepted:?}; a revocation on A \
         refused on B after {refused:?}"
    );
    assert!(
        refused < Duration::from_secs(1),
        "a revocation took {refused:?} to reach the other instance"
    );
    // A itself reads its own file again within its recheck of a second (SERVER_RECHECK).
    let here = until(&mut on_a, &fed, false).await;
    assert!(
        here < Duration::from_secs(2),
        "{here:?} on the instance that revoked"
    );
    // The other token is unaffected on both.
    assert!(audit_key(&mut on_b, &late).await.is_ok());
    drop((a, b));
}
