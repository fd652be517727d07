// Test and bench support (test_token_mask_vocab.h).
#include "test_token_mask_vocab.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ai00::test {
namespace {

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  }
}

// Python str/bytes literal -> bytes (str literals are encoded as UTF-8, like the RWKV tokenizer).
std::string python_literal(const std::string& lit, int line) {
  size_t i = 0;
  bool bytes = false;
  if (lit[i] == 'b') bytes = true, ++i;
  char q = lit[i++];
  size_t end = lit.rfind(q);
  if (end == std::string::npos || end < i)
    throw std::runtime_error("vocab line " + std::to_string(line));
  std::string out;
  for (; i < end; ++i) {
    if (lit[i] != '\\') {
      out += lit[i];
      continue;
    }
    char c = lit[++i];
    auto hex = [&](int n) {
      uint32_t v = std::stoul(lit.substr(i + 1, n), nullptr, 16);
      i += n;
      return v;
    };
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '0':
        out += '\0';
        break;
      case 'x': {
        uint32_t v = hex(2);
        if (bytes)
          out += char(v);
        else
          append_utf8(v, out);
        break;
      }
      case 'u':
        append_utf8(hex(4), out);
        break;
      case 'U':
        append_utf8(hex(8), out);
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> load_rwkv_vocab(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> tokens{""};
  std::string l;
  int line = 0;
  while (std::getline(in, l)) {
    ++line;
    if (l.empty()) continue;
    size_t a = l.find(' '), b = l.rfind(' ');
    size_t id = std::stoul(l.substr(0, a));
    std::string bytes = python_literal(l.substr(a + 1, b - a - 1), line);
    if (bytes.size() != std::stoul(l.substr(b + 1)))
      throw std::runtime_error(path + ":" + std::to_string(line) + ": length mismatch");
    if (tokens.size() <= id) tokens.resize(id + 1);
    tokens[id] = bytes;
  }
  return tokens;
}

std::shared_ptr<const grammar::VocabIndex> world_vocab() {
  static std::shared_ptr<const grammar::VocabIndex> v = [] {
    const char* env = std::getenv("AI00_SHARED_DIR");
    std::string dir = env ? env : AI00_TEST_SHARED_DIR;
    return grammar::VocabIndex::build(load_rwkv_vocab(dir + "/tokenizer/rwkv_vocab_v20230424.txt"),
                                      65536);
  }();
  return v;
}

std::string unescape_c(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n')
      out += '\n';
    else if (c == 't')
      out += '\t';
    else if (c == 'r')
      out += '\r';
    else if (c == 's')
      out += ' ';  // \s: a visible trailing space
    else if (c == 'x')
      out += char(std::stoul(s.substr(i + 1, 2), nullptr, 16)), i += 2;
    else
      out += c;
  }
  return out;
}

std::vector<GrammarCase> load_corpus(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".txt") files.push_back(n);
    }
    closedir(d);
  }
  if (files.empty()) throw std::runtime_error("no corpus files in " + dir);
  std::sort(files.begin(), files.end());
  std::vector<GrammarCase> out;
  for (const std::string& f : files) {
    std::ifstream in(dir + "/" + f);
    std::string l;
    int line = 0;
    while (std::getline(in, l)) {
      ++line;
      if (l.rfind("###", 0) == 0) {
        GrammarCase c;
        c.file = f;
        c.line = line;
        std::istringstream words(l.substr(3));
        std::string w;
        while (words >> w) {
          if (w.rfind("start=", 0) == 0)
            c.start = w.substr(6);
          else if (c.name.empty())
            c.name = w;
        }
        out.push_back(c);
      } else if (out.empty() || out.back().file != f) {
        continue;  // preamble comments
      } else if (l.rfind("+", 0) == 0 && (l.size() == 1 || l[1] == ' ')) {
        out.back().accept.push_back(unescape_c(l.size() > 2 ? l.substr(2) : ""));
      } else if (l.rfind("-", 0) == 0 && (l.size() == 1 || l[1] == ' ')) {
        out.back().reject.push_back(unescape_c(l.size() > 2 ? l.substr(2) : ""));
      } else if (out.back().accept.empty() && out.back().reject.empty()) {
        out.back().grammar += l + "\n";
      }
    }
  }
  return out;
}

}  // namespace ai00::test
