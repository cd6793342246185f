//! `referee`: serve the gRPC API, replay a log, count perft.

fn main() -> std::process::ExitCode {
    referee::cli::run()
}
