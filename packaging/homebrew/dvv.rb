# Homebrew formula: brew install --HEAD ./packaging/homebrew/dvv.rb
class Dvv < Formula
  desc "Drive remote machines (VNC, RDP, SSH) from AI agents, scripts and shells"
  homepage "https://github.com/dvvhq/dvv"
  head "https://github.com/dvvhq/dvv.git", branch: "main"
  license "Apache-2.0"

  depends_on "go" => :build

  def install
    system "go", "build", *std_go_args(output: bin/"dvvd"), "./cmd/dvvd"
    system "go", "build", *std_go_args(output: bin/"dvv"), "./cmd/dvv"
    system "go", "build", *std_go_args(output: bin/"dvvmcp"), "./cmd/dvvmcp"
  end

  service do
    run [opt_bin/"dvvd", "--id", "default"]
    keep_alive successful_exit: false
    log_path "/tmp/dvvd.log"
  end

  test do
    assert_match "dvvd", shell_output("#{bin}/dvvd --version")
  end
end
