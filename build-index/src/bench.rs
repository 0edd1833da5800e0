pub fn run(_a: &BenchArgs) -> anyhow::Result<()> { Ok(()) }
#[derive(clap::Args)] pub struct BenchArgs {}
