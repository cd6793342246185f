//! Compiles the protos with protox (pure Rust), so a fresh machine needs only cargo.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/referee/v1/referee.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    // The descriptor set also feeds gRPC server reflection, so grpcurl works without the file.
    let set_path = out.join("referee_descriptor.bin");
    std::fs::write(&set_path, prost::Message::encode_to_vec(&descriptors))?;
    tonic_prost_build::configure()
        // Malformed protobuf is INVALID_ARGUMENT, not tonic-prost's INTERNAL (issue 20).
        .codec_path("crate::service::codec::ProtoCodec")
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
