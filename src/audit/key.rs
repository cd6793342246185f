//! The server's Ed25519 signing key: generated on first use, kept in the data directory.

use std::io::Write;
use std::path::Path;

use ed25519_dalek::SigningKey;
use rand_core::OsRng;

use super::Error;

/// The key's file name inside the data directory (32 secret bytes, hex).
pub const KEY_FILE: &str = "audit-ed25519.key";

/// The data directory's signing key, created (readable by the owner only) if missing.
pub fn load_or_create_key(data: &Path) -> Result<SigningKey, Error> {
    let path = data.join(KEY_FILE);
    let fail = |message: String| Error::Key {
        path: path.display().to_string(),
        message,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(text.trim()).map_err(fail),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(data).map_err(|e| fail(e.to_string()))?;
            let key = SigningKey::generate(&mut OsRng);
            write_private(&path, &hex::encode(key.to_bytes())).map_err(|e| fail(e.to_string()))?;
            Ok(key)
        }
        Err(e) => Err(fail(e.to_string())),
    }
}

/// The signing key every instance of one PostgreSQL log signs with (issue 33): the first key
/// given to the database (this data directory's, created if missing, when it is the first).
/// Where this directory held another key, that file is kept beside as `KEY_FILE.replaced-MS`
/// (bundles it signed still verify against its public key) and the shared key takes its
/// place, so that `referee audit key --data` prints what every instance signs with. The key's
/// secret is then in the database too: guard it as the key file.
pub async fn shared_key(log: &crate::log::PgLog, data: &Path) -> Result<SigningKey, Error> {
    let local = load_or_create_key(data)?;
    let path = data.join(KEY_FILE);
    let fail = |message: String| Error::Key {
        path: path.display().to_string(),
        message,
    };
    let mine = hex::encode(local.to_bytes());
    let shared = log
        .share(SHARED_KEY, std::slice::from_ref(&mine))
        .await
        .map_err(|e| {
            fail(format!(
                "cannot share the signing key through the database: {e}"
            ))
        })?;
    let first = shared
        .first()
        .ok_or_else(|| fail("the database gave back no signing key".into()))?;
    if *first == mine {
        return Ok(local);
    }
    let key = parse(first).map_err(|e| fail(format!("the database's signing key: {e}")))?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let kept = data.join(format!("{KEY_FILE}.replaced-{stamp}"));
    std::fs::rename(&path, &kept)
        .map_err(|e| fail(format!("keeping it as {}: {e}", kept.display())))?;
    write_private(&path, first).map_err(|e| fail(e.to_string()))?;
    tracing::warn!(
        kept = %kept.display(),
        public_key = %public_key_hex(&key),
        "this data directory's signing key differs from the one the other instances of this \
         database sign with: that one is used, this one kept beside"
    );
    Ok(key)
}

/// The kind of the signing key's line in the database's shared table.
const SHARED_KEY: &str = "audit-ed25519-key";

/// The public half, hex: what `referee audit key` prints and auditors pin with `--key`.
pub fn public_key_hex(key: &SigningKey) -> String {
    hex::encode(key.verifying_key().to_bytes())
}

fn parse(text: &str) -> Result<SigningKey, String> {
    let bytes = hex::decode(text).map_err(|e| format!("not hex: {e}"))?;
    let secret: [u8; 32] = bytes.try_into().map_err(|_| "not 32 bytes".to_string())?;
    Ok(SigningKey::from_bytes(&secret))
}

/// Creates the file with mode 0600 before writing the secret into it, and syncs it: a key
/// lost in a crash would leave earlier bundles unverifiable against the printed key.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_created_once_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = load_or_create_key(dir.path()).expect("create");
        let again = load_or_create_key(dir.path()).expect("load");
        assert_eq!(public_key_hex(&first), public_key_hex(&again));
        std::fs::write(dir.path().join(KEY_FILE), "zz").expect("write");
        assert!(
            load_or_create_key(dir.path())
                .unwrap_err()
                .to_string()
                .contains("not hex")
        );
    }
}
