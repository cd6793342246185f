//! A throwaway PostgreSQL cluster for one test: `initdb` into a temporary directory, started
//! with `pg_ctl` on a free loopback port (its unix socket in the same directory), stopped and
//! removed on drop. PostgreSQL refuses to run as root, so as root its commands run as the
//! `postgres` user the Debian package creates, and the directory is given to that user.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::components::skip_or_fail;

/// A running cluster; stopped (`pg_ctl stop -m fast`) and its directory removed on drop.
pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    port: u16,
}

impl Cluster {
    /// Starts a fresh cluster, or returns `None` when PostgreSQL's binaries are not
    /// installed, after [`skip_or_fail`] said so (it fails the test instead when components
    /// are required).
    pub fn start(test: &str) -> Option<Cluster> {
        let Some(bin) = bin_dir() else {
            skip_or_fail(
                test,
                "PostgreSQL's initdb and pg_ctl not found (pg_config --bindir, \
                 /usr/lib/postgresql/*/bin); run .ci/test to install it, or \
                 `apt-get install -y postgresql`",
            );
            return None;
        };
        let as_postgres = running_as_root();
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cluster = Cluster {
            dir,
            bin,
            as_postgres,
            port: 0,
        };
        if as_postgres {
            cluster.run("chown", &["postgres:", cluster.path()]);
        }
        cluster.initdb();
        cluster.start_server();
        Some(cluster)
    }

    /// The connection string of the cluster's `postgres` database, over loopback TCP.
    pub fn url(&self) -> String {
        self.url_of("postgres")
    }

    /// The connection string of another database of the cluster.
    pub fn url_of(&self, database: &str) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname={database} connect_timeout=5",
            self.port
        )
    }

    /// Runs SQL with `psql` as the superuser, failing the test if it fails; returns stdout.
    pub fn psql(&self, database: &str, sql: &str) -> String {
        let port = self.port.to_string();
        let args = [
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            "-d",
            database,
            "-c",
            sql,
        ];
        let output = self.run(&self.tool("psql"), &args);
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Serves only TLS from now on: `cert_pem` (the chain) and `key_pem` become the server's
    /// certificate and key, and every TCP connection must be encrypted (`hostssl` only);
    /// plain text is refused by the server. Applied by a reload.
    pub fn require_tls(&self, cert_pem: &str, key_pem: &str) {
        let data = self.data();
        let write = |name: &str, text: &str| {
            let path = format!("{data}/{name}");
            std::fs::write(&path, text).expect("write a TLS file");
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                .expect("chmod");
            if self.as_postgres {
                self.run("chown", &["postgres:", &path]);
            }
        };
        write("server.crt", cert_pem);
        write("server.key", key_pem);
        write(
            "pg_hba.conf",
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n",
        );
        let conf = format!("{data}/postgresql.conf");
        let mut settings = std::fs::read_to_string(&conf).expect("postgresql.conf");
        settings
            .push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
        std::fs::write(&conf, settings).expect("postgresql.conf");
        self.run(&self.tool("pg_ctl"), &["-D", &data, "reload"]);
        // The reload is asynchronous: wait until the server reports TLS on.
        for _ in 0..100 {
            if self.psql("postgres", "SHOW ssl") == "on" {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the server did not turn TLS on after a reload");
    }

    /// What the server has logged so far (its stderr, `server.log`).
    pub fn server_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    fn path(&self) -> &str {
        self.dir.path().to_str().expect("a UTF-8 temporary path")
    }

    fn data(&self) -> String {
        format!("{}/data", self.path())
    }

    fn tool(&self, name: &str) -> String {
        self.bin.join(name).to_string_lossy().into_owned()
    }

    fn initdb(&self) {
        let data = self.data();
        let args = ["-D", &data, "-U", "postgres", "-A", "trust", "-E", "UTF8"];
        // --no-sync: initdb's own files need not reach the disk for a test; the server still
        // runs with fsync on, as PgLog requires.
        let args: Vec<&str> = args
            .into_iter()
            .chain(["--locale=C", "--no-sync"])
            .collect();
        self.run(&self.tool("initdb"), &args);
    }

    /// `pg_ctl -w start` on a free port; tries a few ports in case another test takes one
    /// between our look and the server's bind.
    fn start_server(&mut self) {
        for _ in 0..5 {
            self.port = free_port();
            let options = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1",
                self.port,
                self.path()
            );
            let (data, log) = (self.data(), format!("{}/server.log", self.path()));
            let args = ["-D", &data, "-l", &log, "-w", "-o", &options, "start"];
            if self.try_run(&self.tool("pg_ctl"), &args).status.success() {
                return;
            }
        }
        let log = std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
        panic!("pg_ctl start failed five times; server log:\n{log}");
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        let output = self.try_run(program, args);
        assert!(
            output.status.success(),
            "{program} {args:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when we are root (except chown).
    fn try_run(&self, program: &str, args: &[&str]) -> Output {
        let path = format!("{}:/usr/bin:/bin", self.bin.display());
        let mut command = if self.as_postgres && program != "chown" {
            let mut c = Command::new("runuser");
            c.args([
                "-u",
                "postgres",
                "--",
                "env",
                &format!("PATH={path}"),
                program,
            ]);
            c
        } else {
            Command::new(program)
        };
        command
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("run {program}: {e}"))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.port == 0 {
            return;
        }
        let data = self.data();
        let stopped = self.try_run(&self.tool("pg_ctl"), &["-D", &data, "-m", "fast", "stop"]);
        if !stopped.status.success() {
            eprintln!(
                "pg_ctl stop failed: {}",
                String::from_utf8_lossy(&stopped.stderr)
            );
        }
        // The TempDir removes the directory as it drops.
    }
}

/// The directory of initdb and pg_ctl: `pg_config --bindir`, else Debian's versioned path.
fn bin_dir() -> Option<PathBuf> {
    let from_pg_config = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"));
    from_pg_config
        .into_iter()
        .chain(debian)
        .find(|bin| has_tools(bin))
}

fn has_tools(bin: &Path) -> bool {
    ["initdb", "pg_ctl", "psql"]
        .iter()
        .all(|tool| bin.join(tool).is_file())
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}
