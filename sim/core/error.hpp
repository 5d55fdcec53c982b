// Errors are exceptions with context; only main() turns them into exit codes (STYLE.md, habit 10).
#pragma once

#include <stdexcept>
#include <string>

namespace fleetsim {

// Bad input: names the file, the key path and what would be valid. Exit code 2.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string key, const std::string& message, int line = 0)
      : std::runtime_error(compose(file, key, message, line)),
        file_(std::move(file)), key_(std::move(key)), message_(message), line_(line) {}
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& message() const { return message_; }  // without file and key
  [[nodiscard]] int line() const { return line_; }

 private:
  static std::string compose(const std::string& file, const std::string& key,
                             const std::string& message, int line) {
    std::string out = file.empty() ? std::string("<command line>") : file;
    if (line > 0) out.append(":").append(std::to_string(line));
    out.append(": ");
    if (!key.empty()) out.append(key).append(": ");
    out.append(message);
    return printable(out);
  }
  // Control characters from the input (a stray carriage return, an escape sequence) are shown as
  // \xNN so a message cannot rewrite the terminal; line breaks of multi-line messages are kept.
  static std::string printable(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) {
        out.append("\\x").push_back(hex[u >> 4]);
        out.push_back(hex[u & 0xF]);
      } else {
        out.push_back(c);
      }
    }
    return out;
  }
  std::string file_, key_, message_;
  int line_;
};

// A layout or model that cannot run (does not fit in memory, does not divide). Exit code 2.
class InfeasibleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fleetsim
