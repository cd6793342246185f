//! A highly available PostgreSQL on loopback for the failover tests: a pg_auto_failover
//! formation (a monitor and two data nodes) in a temporary directory, run by Debian's
//! `pg_autoctl` as an operator runs it, so the failover is the failover manager's, not ours.
//!
//! What the tests rely on, with pg_auto_failover 2.0 and two data nodes:
//! - the monitor sets the primary's `synchronous_standby_names` to `ANY 1 (<standby>)` itself,
//!   and PostgreSQL's default `synchronous_commit = on` then returns a COMMIT only once the
//!   standby has flushed it; [`Formation::start`] checks both before it hands the formation out;
//! - when the primary's node dies, the monitor promotes the standby (to `wait_primary`:
//!   asynchronous, as it has no standby left), and clients find it through a multi-host
//!   connection string with `target_session_attrs=read-write`;
//! - the monitor's health checks are tuned (see [`MONITOR_TUNING`]) so that takes seconds, not
//!   the default minute.

use std::fs::{self, File};
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::components::skip_or_fail;

/// Where Debian's PostgreSQL 15 keeps `pg_ctl`, `initdb` and `psql` (`pg_config --bindir`);
/// pg_auto_failover's packaged extension is built for that version.
const PG_BINDIR: &str = "/usr/lib/postgresql/15/bin";

/// The monitor's health checks, tightened so a dead primary is noticed within about three
/// seconds (defaults: a 20 s check period and 20 s before a node is unhealthy, so about a
/// minute to fail over); reloaded without a restart.
const MONITOR_TUNING: &[&str] = &[
    "ALTER SYSTEM SET pgautofailover.health_check_period = 1000",
    "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000",
    "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1",
    "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500",
    "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000",
    "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000",
    "SELECT pg_reload_conf()",
];

/// How long each step of the set-up may take before the test fails with the logs.
const STEP_LIMIT: Duration = Duration::from_secs(60);

/// A running monitor and two data nodes; everything stops and is removed on drop.
pub struct Formation {
    dir: TempDir,
    autoctl: PathBuf,
    /// The operating-system user PostgreSQL runs as, when the test runs as root.
    owner: Option<Owner>,
    monitor: Instance,
    nodes: [Instance; 2],
    /// The data node killed by [`Formation::kill_primary`], and when.
    killed: Option<(usize, Instant)>,
}

/// `postgres`'s user and group ids: PostgreSQL refuses to run as root.
#[derive(Clone, Copy)]
struct Owner {
    uid: u32,
    gid: u32,
}

/// One PostgreSQL instance and the `pg_autoctl run` keeper that looks after it.
struct Instance {
    name: &'static str,
    pgdata: PathBuf,
    port: u16,
    keeper: Option<Child>,
}

/// A node's state as the monitor reports it.
#[derive(Debug)]
struct NodeState {
    port: u16,
    reported: String,
    goal: String,
}

impl NodeState {
    /// The node has reached the state the monitor assigned it.
    fn settled_in(&self, states: &[&str]) -> bool {
        self.reported == self.goal && states.contains(&self.reported.as_str())
    }
}

impl Formation {
    /// Creates and starts the formation and waits for a primary and a synchronous secondary;
    /// None when pg_autoctl or PostgreSQL is not installed, after [`skip_or_fail`] said so (it
    /// fails the test instead when components are required).
    pub fn start(test: &str) -> Option<Formation> {
        let Some(autoctl) = installed() else {
            let why = format!(
                "pg_autoctl or PostgreSQL 15 ({PG_BINDIR}) not found; run .ci/test to install \
                 it (Debian's postgresql-15 and postgresql-15-auto-failover)"
            );
            skip_or_fail(test, &why);
            return None;
        };
        let began = Instant::now();
        let mut formation = Formation::lay_out(autoctl);
        formation.start_monitor();
        formation.start_node(0, &["single"]);
        formation.start_node(1, &["secondary"]);
        formation.wait_for(|s| {
            s.iter()
                .filter(|n| n.settled_in(&["primary", "secondary"]))
                .count()
                == 2
        });
        let sync = formation.check_synchronous();
        eprintln!(
            "pg_ha: monitor and two nodes ready in {:.1} s (synchronous_standby_names = {sync})",
            began.elapsed().as_secs_f64()
        );
        Some(formation)
    }

    /// The clients' connection string: both data nodes, the writable one chosen at connect.
    pub fn url(&self) -> String {
        let [a, b] = &self.nodes;
        format!(
            "postgresql://{}@127.0.0.1:{},127.0.0.1:{}/postgres\
             ?target_session_attrs=read-write&connect_timeout=2",
            self.superuser(),
            a.port,
            b.port
        )
    }

    /// kill -9 the primary's whole node (its keeper's process group, PostgreSQL with it), as
    /// a machine dies: killing only the postmaster lets the keeper restart it in place.
    pub fn kill_primary(&mut self) {
        let states = self.states();
        let primary = states
            .iter()
            .find(|n| n.settled_in(&["primary"]))
            .unwrap_or_else(|| panic!("no primary to kill: {states:?}"));
        let index = self.index_of(primary.port);
        let keeper = self.nodes[index]
            .keeper
            .as_mut()
            .expect("the primary's keeper runs");
        signal_group(keeper.id(), "KILL");
        let _ = keeper.wait();
        self.nodes[index].keeper = None;
        self.killed = Some((index, Instant::now()));
        eprintln!(
            "pg_ha: killed the primary {} (kill -9 of its process group)",
            self.nodes[index].name
        );
    }

    /// Waits until the monitor reports the other node as the writable primary; the time from
    /// the kill to then.
    pub fn wait_for_new_primary(&self, limit: Duration) -> Duration {
        let (index, at) = self.killed.expect("kill_primary first");
        let survivor = self.nodes[1 - index].port;
        let deadline = Instant::now() + limit;
        loop {
            let states = self.states();
            if states
                .iter()
                .any(|n| n.port == survivor && n.settled_in(&["primary", "wait_primary"]))
            {
                return at.elapsed();
            }
            if Instant::now() > deadline {
                panic!(
                    "no new primary within {limit:?}: {states:?}\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A temporary directory PostgreSQL's user owns, and three free loopback ports.
    fn lay_out(autoctl: PathBuf) -> Formation {
        let owner = running_as_root().then(postgres_user);
        let dir = tempfile::Builder::new()
            .prefix("pg-ha-")
            .tempdir()
            .expect("tempdir");
        if let Some(o) = owner {
            std::os::unix::fs::chown(dir.path(), Some(o.uid), Some(o.gid)).expect("chown tempdir");
        }
        let [m, a, b] = free_ports();
        let instance = |name, port| Instance {
            name,
            pgdata: dir.path().join(name),
            port,
            keeper: None,
        };
        Formation {
            monitor: instance("monitor", m),
            nodes: [instance("n1", a), instance("n2", b)],
            dir,
            autoctl,
            owner,
            killed: None,
        }
    }

    fn start_monitor(&mut self) {
        let pgdata = self.monitor.pgdata.clone();
        let port = self.monitor.port.to_string();
        let at = ["--pgdata", path_str(&pgdata), "--pgport", &port];
        self.run_autoctl(
            "create monitor --hostname 127.0.0.1 --auth trust --no-ssl",
            &at,
        );
        // `create monitor` has no --listen: without this it listens on every interface.
        let listen = [
            "--pgdata",
            path_str(&pgdata),
            "postgresql.listen_addresses",
            "127.0.0.1",
        ];
        self.run_autoctl("config set", &listen);
        self.monitor.keeper = Some(self.spawn_keeper(&pgdata, "monitor"));
        self.wait_until(|f| {
            f.psql(f.monitor.port, "pg_auto_failover", "SELECT 1")
                .is_ok()
        });
        for sql in MONITOR_TUNING {
            self.psql(self.monitor.port, "pg_auto_failover", sql)
                .expect("tune the monitor");
        }
    }

    /// Creates data node `index`, runs its keeper and waits for it to settle in `states`.
    fn start_node(&mut self, index: usize, states: &[&str]) {
        let monitor = format!(
            "postgres://autoctl_node@127.0.0.1:{}/pg_auto_failover?sslmode=disable",
            self.monitor.port
        );
        let node = &self.nodes[index];
        let (name, pgdata, port) = (node.name, node.pgdata.clone(), node.port);
        let port_arg = port.to_string();
        let at = [
            "--pgdata",
            path_str(&pgdata),
            "--pgport",
            &port_arg,
            "--name",
            name,
        ];
        let create =
            "create postgres --listen 127.0.0.1 --hostname 127.0.0.1 --auth trust --no-ssl";
        self.run_autoctl(create, &[&at[..], &["--monitor", &monitor]].concat());
        self.nodes[index].keeper = Some(self.spawn_keeper(&pgdata, name));
        self.wait_for(|s| s.iter().any(|n| n.port == port && n.settled_in(states)));
    }

    /// The primary must acknowledge a commit only once the standby has it: what the failover
    /// test's "nothing acknowledged is lost" rests on.
    fn check_synchronous(&self) -> String {
        let primary = self
            .states()
            .into_iter()
            .find(|n| n.settled_in(&["primary"]))
            .expect("a primary");
        let show = |setting: &str| {
            self.psql(primary.port, "postgres", &format!("SHOW {setting}"))
                .unwrap_or_else(|e| panic!("SHOW {setting}: {e}"))
        };
        let names = show("synchronous_standby_names");
        assert!(
            !names.is_empty(),
            "pg_auto_failover left replication asynchronous"
        );
        assert_eq!(show("synchronous_commit"), "on");
        names
    }

    /// Runs `pg_autoctl WORDS ARGS` to its end; panics with its output if it fails.
    fn run_autoctl(&self, words: &str, args: &[&str]) {
        let out = self
            .command(&self.autoctl)
            .args(words.split(' '))
            .args(args)
            .output()
            .expect("run pg_autoctl");
        assert!(out.status.success(), "pg_autoctl {words}: {}", said(&out));
    }

    /// Starts `pg_autoctl run` in its own process group, its output in `NAME.log`.
    fn spawn_keeper(&self, pgdata: &Path, name: &str) -> Child {
        let log = File::create(self.dir.path().join(format!("{name}.log"))).expect("log file");
        self.command(&self.autoctl)
            .args(["run", "--pgdata", path_str(pgdata)])
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("start pg_autoctl run")
    }

    /// One SQL statement through psql over the local socket, as the database superuser.
    fn psql(&self, port: u16, db: &str, sql: &str) -> Result<String, String> {
        let psql = Path::new(PG_BINDIR).join("psql");
        let out = self
            .command(&psql)
            .args([
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-p",
                &port.to_string(),
                "-d",
                db,
                "-c",
                sql,
            ])
            .env("PGCONNECT_TIMEOUT", "2")
            .output()
            .map_err(|e| e.to_string())?;
        match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
            false => Err(said(&out)),
        }
    }

    /// A command as PostgreSQL's user, with a clean environment: pg_autoctl keeps its state
    /// under the XDG directories (here, the formation's own) and probes the PATH it is given.
    fn command(&self, program: &Path) -> Command {
        let dir = self.dir.path();
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", format!("{PG_BINDIR}:/usr/bin:/bin"))
            .env("HOME", dir)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_DATA_HOME", dir.join("data"))
            .env("XDG_RUNTIME_DIR", dir.join("run"))
            .current_dir(dir)
            .stdin(Stdio::null());
        if let Some(o) = self.owner {
            cmd.uid(o.uid).gid(o.gid);
        }
        cmd
    }

    /// Every data node's state, from the monitor.
    fn states(&self) -> Vec<NodeState> {
        let sql =
            "SELECT nodeport, reportedstate, goalstate FROM pgautofailover.node ORDER BY nodeid";
        let rows = self
            .psql(self.monitor.port, "pg_auto_failover", sql)
            .unwrap_or_default();
        rows.lines().filter_map(parse_state).collect()
    }

    fn wait_for(&self, ready: impl Fn(&[NodeState]) -> bool) {
        self.wait_until(|f| ready(&f.states()));
    }

    fn wait_until(&self, ready: impl Fn(&Formation) -> bool) {
        let deadline = Instant::now() + STEP_LIMIT;
        while !ready(self) {
            if Instant::now() > deadline {
                panic!(
                    "formation not ready within {STEP_LIMIT:?}: {:?}\n{}",
                    self.states(),
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn index_of(&self, port: u16) -> usize {
        self.nodes
            .iter()
            .position(|n| n.port == port)
            .expect("a node of ours")
    }

    fn superuser(&self) -> String {
        match self.owner {
            Some(_) => "postgres".to_string(),
            None => std::env::var("USER").expect("USER"),
        }
    }

    /// The end of each keeper's log, for a failure message.
    fn logs(&self) -> String {
        let mut all = String::new();
        for name in ["monitor", "n1", "n2"] {
            let text =
                fs::read_to_string(self.dir.path().join(format!("{name}.log"))).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            all += &format!("--- {name}.log (last lines)\n");
            tail.iter().rev().for_each(|l| all += &format!("{l}\n"));
        }
        all
    }

    /// Stops the data nodes' keepers (fast shutdown), then the monitor's; kills what remains.
    fn stop(&mut self) {
        let began = Instant::now();
        for node in self.nodes.iter_mut() {
            stop_keeper(node);
        }
        stop_keeper(&mut self.monitor);
        for pid in processes_under(self.dir.path()) {
            eprintln!("pg_ha: process {pid} outlived the formation; killing it");
            signal(pid, "KILL");
        }
        eprintln!(
            "pg_ha: formation stopped in {:.1} s",
            began.elapsed().as_secs_f64()
        );
    }
}

impl Drop for Formation {
    fn drop(&mut self) {
        // A test that failed half-way must leave no PostgreSQL behind.
        self.stop();
    }
}

/// Asks a keeper to stop (SIGINT: PostgreSQL's fast shutdown) and waits; kill -9 after 15 s.
fn stop_keeper(instance: &mut Instance) {
    let Some(mut keeper) = instance.keeper.take() else {
        return;
    };
    signal(keeper.id(), "INT");
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if !matches!(keeper.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "pg_ha: {} did not stop within 15 s; killing it",
        instance.name
    );
    signal_group(keeper.id(), "KILL");
    let _ = keeper.wait();
}

/// The `pg_autoctl` found on the PATH (or in /usr/bin), if PostgreSQL 15 is installed too.
fn installed() -> Option<PathBuf> {
    if !Path::new(PG_BINDIR).join("pg_ctl").exists() {
        return None;
    }
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .chain(["/usr/bin"])
        .map(|dir| Path::new(dir).join("pg_autoctl"))
        .find(|p| p.exists())
}

fn running_as_root() -> bool {
    // /proc/self belongs to the process's effective user.
    fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// The `postgres` user Debian's package creates, from /etc/passwd.
fn postgres_user() -> Owner {
    let passwd = fs::read_to_string("/etc/passwd").expect("/etc/passwd");
    let line = passwd
        .lines()
        .find(|l| l.starts_with("postgres:"))
        .expect("a postgres user (Debian's postgresql package creates it)");
    let fields: Vec<&str> = line.split(':').collect();
    Owner {
        uid: fields[2].parse().expect("postgres uid"),
        gid: fields[3].parse().expect("postgres gid"),
    }
}

/// Three distinct free loopback ports: all bound at once, so none repeats.
fn free_ports() -> [u16; 3] {
    let bind = || TcpListener::bind("127.0.0.1:0").expect("a free port");
    let listeners = [bind(), bind(), bind()];
    listeners.map(|l| l.local_addr().expect("local addr").port())
}

/// `port|reportedstate|goalstate`, as psql prints a row unaligned.
fn parse_state(line: &str) -> Option<NodeState> {
    let mut fields = line.split('|');
    Some(NodeState {
        port: fields.next()?.parse().ok()?,
        reported: fields.next()?.to_string(),
        goal: fields.next()?.to_string(),
    })
}

/// Processes whose working directory lies in `dir`: PostgreSQL's (they run in their data
/// directory) and the keepers (started there), whatever their process group.
fn processes_under(dir: &Path) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

fn signal(pid: u32, name: &str) {
    let _ = Command::new("kill")
        .args(["-s", name, &pid.to_string()])
        .status();
}

/// Signals a whole process group (its leader's pid): the keeper and the PostgreSQL it runs.
fn signal_group(leader: u32, name: &str) {
    let _ = Command::new("kill")
        .args(["-s", name, "--", &format!("-{leader}")])
        .status();
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
