# Homebrew formula. A release replaces url/sha256 with the tagged source
# tarball; `brew install --HEAD ./packaging/homebrew/dvv.rb` builds main.
class Dvv < Formula
  desc "Drive remote machines (VNC, RDP, SSH) from AI agents, scripts and shells"
  homepage "https://github.com/dvvhq/dvv"
  url "https://github.com/dvvhq/dvv/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "Apache-2.0"
  head "https://github.com/dvvhq/dvv.git", branch: "main"

  depends_on "go" => :build

  def install
    ldflags = %w[-s -w].concat(%w[pkg/daemon pkg/cli pkg/mcp].map do |p|
      "-X github.com/dvvhq/dvv/#{p}.Version=#{version}"
    end)
    %w[dvvd dvv dvvmcp].each do |cmd|
      system "go", "build", *std_go_args(ldflags:, output: bin/cmd), "./cmd/#{cmd}"
    end
    generate_completions_from_executable(bin/"dvv", "completion")
    (buildpath/"man").mkpath
    system "go", "run", "-ldflags", ldflags.join(" "), "./internal/genman", buildpath/"man"
    system bin/"dvvd", "--gen-man", buildpath/"man"
    system bin/"dvvmcp", "--gen-man", buildpath/"man"
    man1.install Dir[buildpath/"man/*.1"]
  end

  service do
    run [opt_bin/"dvvd", "--id", "default"]
    keep_alive successful_exit: false
    process_type :interactive
    log_path var/"log/dvvd.log"
    error_log_path var/"log/dvvd.log"
  end

  test do
    assert_equal "dvvd #{version}", shell_output("#{bin}/dvvd --version").strip
    assert_equal "dvv #{version}", shell_output("#{bin}/dvv --version").strip
    assert_match "25 dvv tools", shell_output("#{bin}/dvvmcp --help")
  end
end
