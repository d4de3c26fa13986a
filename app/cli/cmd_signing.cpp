// keygen, sign, verify-signature: Ed25519 via the engine's signing module.
// Keys live in $XDG_CONFIG_HOME/paddock/ (default ~/.config/paddock/), hex encoded.
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/cli/commands.h"
#include "engine/signing.h"
#include "platform/engine_files.h"

namespace paddock::cli {
namespace {

std::string absolute(const std::string& f) {
  std::error_code ec;
  return std::filesystem::absolute(f, ec).lexically_normal().string();
}

}  // namespace

void add_signing_commands(CLI::App& app, CliContext& ctx) {
  app.add_subcommand("keygen", "Create an Ed25519 signing key pair and trust its public key")->callback([&ctx] {
    auto layout = ctx.layout();
    if (!layout.ok()) { ctx.exit_code = fail(layout.error()); return; }
    const std::string dir = layout->config_dir;
    auto k = keygen(dir, platform::AtomicFileWriter{});
    if (!k.ok()) { ctx.exit_code = fail(k.error()); return; }
    std::cout << "public key " << k->public_hex << "\n"
              << "secret key written to " << dir << "/signing_key (keep it private)\n"
              << "public key added to " << dir << "/trusted_keys\n";
    ctx.exit_code = 0;
  });
  {
    auto* cmd = app.add_subcommand("sign", "Sign a policy file: writes FILE.sig");
    auto file = std::make_shared<std::string>();
    cmd->add_option("FILE", *file, "Policy file to sign")->required()->type_name("FILE");
    cmd->callback([&ctx, file] {
      const std::string f = absolute(*file);
      auto layout = ctx.layout();
      if (!layout.ok()) { ctx.exit_code = fail(layout.error()); return; }
      if (auto s = sign_file(f, layout->config_dir, platform::AtomicFileWriter{}); !s.ok()) {
        ctx.exit_code = fail(s.error());
        return;
      }
      std::cout << "wrote " << f << ".sig\n";
      ctx.exit_code = 0;
    });
  }
  {
    auto* cmd = app.add_subcommand("verify-signature", "Check FILE.sig against the trusted keys");
    auto file = std::make_shared<std::string>();
    cmd->add_option("FILE", *file, "Signed policy file")->required()->type_name("FILE");
    cmd->callback([&ctx, file] {
      auto layout = ctx.layout();
      if (!layout.ok()) { ctx.exit_code = fail(layout.error()); return; }
      std::vector<std::string> keys;
      for (const auto& dir : {layout->system_dir, layout->config_dir}) {
        auto k = read_trusted_keys(dir + "/trusted_keys");
        if (!k.ok()) { ctx.exit_code = fail(k.error()); return; }
        keys.insert(keys.end(), k->begin(), k->end());
      }
      const std::string f = absolute(*file);
      if (auto s = verify_file_signature(f, keys); !s.ok()) { ctx.exit_code = fail(s.error()); return; }
      std::cout << f << ": signature verified\n";
      ctx.exit_code = 0;
    });
  }
}

}  // namespace paddock::cli
