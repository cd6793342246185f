//! TLS to PostgreSQL (issue 33): the log connects over rustls as `sslmode` says, checking the
//! database's certificate against `--store-ca` and its host name with `verify-full`. The
//! cluster serves only TLS (`hostssl`), with a certificate authority and a server
//! certificate made in the test; plain text is refused by the server itself.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use referee::log::{Log, NewEvent, PgLog};

use crate::common::postgres::Cluster;

/// A certificate authority, and a server certificate it signed for `names`.
struct Made {
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

fn make(names: &[&str]) -> Made {
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().expect("ca key")).expect("ca");
    let key = KeyPair::generate().expect("server key");
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let cert = CertificateParams::new(names)
        .expect("server params")
        .signed_by(&key, &ca)
        .expect("server cert");
    Made {
        ca_pem: ca.pem(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    }
}

async fn open(url: &str, ca: Option<&std::path::Path>) -> Result<PgLog, String> {
    PgLog::open_secured(url, ca, 2)
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_talks_tls_to_postgres_and_verify_full_checks_whom() {
    let Some(cluster) =
        Cluster::start("pg_tls::the_log_talks_tls_to_postgres_and_verify_full_checks_whom")
    else {
        return;
    };
    // The certificate names "localhost" only: 127.0.0.1 is another name for verify-full.
    let made = make(&["localhost"]);
    cluster.require_tls(&made.cert_pem, &made.key_pem);
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &made.ca_pem).expect("ca file");
    let other = dir.path().join("other-ca.pem");
    std::fs::write(&other, make(&["localhost"]).ca_pem).expect("other ca file");
    let by_ip = cluster.url();
    let by_name = by_ip.replace("host=127.0.0.1", "host=localhost");

    // The server refuses plain text: what follows is encrypted or nothing.
    let plain = open(&format!("{by_ip} sslmode=disable"), None).await;
    let refused = plain.err().expect("plain text refused by the server");
    assert!(
        refused.contains("no pg_hba.conf entry") || refused.contains("SSL off"),
        "{refused}"
    );

    // verify-full with the right CA and the name in the certificate: stores and reads back.
    let log = open(&format!("{by_name} sslmode=verify-full"), Some(&ca))
        .await
        .expect("verify-full against the CA");
    log.create("tls", r#"{"game":"xiangqi"}"#.into(), "test")
        .await
        .expect("io")
        .expect("created");
    let event = NewEvent {
        event_id: "e1".into(),
        body: r#"{"n":1}"#.into(),
        writer: "test".into(),
    };
    log.append("tls", 1, vec![event])
        .await
        .expect("io")
        .expect("appended");
    assert_eq!(
        log.info("tls").await.expect("io").expect("game").last_seq,
        1
    );
    let encrypted = cluster.psql(
        "postgres",
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE s.ssl AND a.client_addr IS NOT NULL AND a.application_name = ''",
    );
    assert_ne!(encrypted, "0", "the log's connections are encrypted");
    drop(log);

    // The certificate checked: another CA's, or a name it does not carry, is refused.
    let wrong_ca = open(&format!("{by_name} sslmode=verify-full"), Some(&other)).await;
    let refused = wrong_ca.err().expect("a certificate of another CA");
    assert!(
        refused.contains("certificate") || refused.contains("UnknownIssuer"),
        "{refused}"
    );
    let wrong_name = open(&format!("{by_ip} sslmode=verify-full"), Some(&ca)).await;
    let refused = wrong_name
        .err()
        .expect("127.0.0.1 is not in the certificate");
    assert!(
        refused.contains("certificate") || refused.contains("NotValidForName"),
        "{refused}"
    );
    // verify-full without a CA is refused before connecting, naming the flag.
    let no_ca = open(&format!("{by_name} sslmode=verify-full"), None).await;
    assert!(no_ca.err().expect("no CA").contains("--store-ca"));

    // require without a CA encrypts without checking (libpq's meaning): it connects.
    let log = open(&format!("{by_ip} sslmode=require"), None)
        .await
        .expect("require connects");
    assert_eq!(
        log.info("tls").await.expect("io").expect("game").last_seq,
        1
    );
}
