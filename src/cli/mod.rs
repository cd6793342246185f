//! The command line: `serve`, `replay`, `perft`.

mod perft;
mod replay;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A rules-compliance referee for Chess Gjq, xiangqi and international draughts.
#[derive(Debug, Parser)]
#[command(name = "referee", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the gRPC service over an embedded log.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:50051")]
        addr: std::net::SocketAddr,
        /// Directory of the embedded log (created if missing).
        #[arg(long, default_value = "./referee-data")]
        data: PathBuf,
    },
    /// Replay a game log and print its rulings.
    Replay {
        /// A log in the interchange format (JSON Lines).
        file: PathBuf,
        /// One ruling per line as JSON (the log format's rulings).
        #[arg(long)]
        json: bool,
    },
    /// Count the leaves of the legal-move tree.
    Perft {
        /// chess_gjq, xiangqi or draughts.
        #[arg(long)]
        variant: String,
        /// Position to start from (default: the variant's start).
        #[arg(long)]
        fen: Option<String>,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
    },
}

/// Runs the command line; exit code 2 for bad input, 1 for failures.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { addr, data } => serve::run(addr, &data),
        Command::Replay { file, json } => replay::run(&file, json),
        Command::Perft {
            variant,
            fen,
            depth,
        } => perft::run(&variant, fen.as_deref(), depth),
    }
}
