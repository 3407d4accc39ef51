// Tokeniser. The rules mirror Jinja2's regular-expression lexer so that the
// text between tags is cut exactly where Python cuts it: `-` strips all
// Python whitespace, lstrip_blocks removes spaces/tabs only when the tag
// starts its line, trim_blocks drops one newline after `%}` / `#}`, raw
// blocks keep their content, and string literals decode Python escapes.
#include "lexer.h"

#include <cstring>

#include "bigint.h"
#include "errors.h"
#include "unicode.h"

namespace jinja {

namespace {

[[noreturn]] void syntax_error(const std::string& msg, int line, int col) {
  throw Error(ErrorKind::Syntax, "TemplateSyntaxError", msg, line, col);
}

// Decodes one UTF-8 code point at s[i]; returns its length (1 on bad bytes).
size_t decode_cp(std::string_view s, size_t i, uint32_t& cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) { cp = c; return 1; }
  size_t n = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
  if (n == 1 || i + n > s.size()) { cp = c; return 1; }
  cp = c & (0x3F >> (n - 1));
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return n;
}

// Python str.isspace() (also what `\s` matches in Python's re for str).
bool py_space_cp(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

// Length of the Python-whitespace run starting at i.
size_t space_run(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size()) {
    uint32_t cp;
    size_t n = decode_cp(s, j, cp);
    if (!py_space_cp(cp)) break;
    j += n;
  }
  return j - i;
}

// str.rstrip() with Python's whitespace set.
size_t rstrip_len(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    uint32_t cp;
    decode_cp(s, start, cp);
    if (!py_space_cp(cp)) break;
    end = start;
  }
  return end;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Python repr() of one character, for "unexpected char '!' at 12".
std::string char_repr(std::string_view s, size_t i) {
  uint32_t cp;
  size_t n = decode_cp(s, i, cp);
  std::string ch(s.substr(i, n));
  if (cp == '\'') return "\"'\"";
  if (cp == '\\') return "'\\\\'";
  if (cp < 0x20 || cp == 0x7F) {
    static const char* hex = "0123456789abcdef";
    if (cp == '\t') return "'\\t'";
    if (cp == '\n') return "'\\n'";
    if (cp == '\r') return "'\\r'";
    return std::string("'\\x") + hex[cp >> 4] + hex[cp & 15] + "'";
  }
  return "'" + ch + "'";
}

// Decodes a string literal body the way Jinja2 does: non-ASCII characters
// are first turned into backslash escapes, then the whole text goes through
// Python's unicode-escape codec.
std::string decode_string(std::string_view body, int line, int col) {
  std::string out;
  out.reserve(body.size());
  static const char* hex = "0123456789abcdef";
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= body.size()) syntax_error("\\ at end of string", line, col);
    unsigned char e = static_cast<unsigned char>(body[i + 1]);
    if (e >= 0x80) {
      // The backslash escapes the first character of the replacement text.
      uint32_t cp;
      size_t n = decode_cp(body, i + 1, cp);
      out += '\\';
      std::string rep;
      int digits = cp < 0x100 ? 2 : cp < 0x10000 ? 4 : 8;
      rep += cp < 0x100 ? 'x' : cp < 0x10000 ? 'u' : 'U';
      for (int k = digits - 1; k >= 0; --k) rep += hex[(cp >> (4 * k)) & 15];
      out += rep;
      i += 1 + n;
      continue;
    }
    i += 2;
    switch (e) {
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\n': break;  // line continuation
      case 'x': case 'u': case 'U': {
        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 0; k < digits; ++k) {
          int h = i + k < body.size() ? hexval(body[i + k]) : -1;
          if (h < 0) {
            syntax_error(e == 'x' ? "truncated \\xXX escape" : e == 'u' ? "truncated \\uXXXX escape"
                                                                          : "truncated \\UXXXXXXXX escape",
                         line, col);
          }
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        if (cp > 0x10FFFF) syntax_error("illegal Unicode character", line, col);
        i += digits;
        append_utf8(out, cp);
        break;
      }
      case 'N':
        syntax_error("named unicode escapes (\\N{...}) are not supported", line, col);
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = e - '0';
          for (int k = 0; k < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++k) cp = cp * 8 + (body[i++] - '0');
          append_utf8(out, cp);
        } else {
          out += '\\';
          out += static_cast<char>(e);
        }
    }
  }
  return out;
}

// `(\d+_)*\d+` : digits with single underscores between them.
size_t match_digits(std::string_view s, size_t i) {
  if (i >= s.size() || !isdigit(static_cast<unsigned char>(s[i]))) return 0;
  size_t j = i;
  while (true) {
    while (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j + 1 < s.size() && s[j] == '_' && isdigit(static_cast<unsigned char>(s[j + 1]))) {
      ++j;
      continue;
    }
    return j - i;
  }
}

// Float literal per Jinja2: D(.D)?e[+-]?D | D.D, not right after a dot.
size_t match_float(std::string_view s, size_t i) {
  if (i > 0 && s[i - 1] == '.') return 0;
  size_t d = match_digits(s, i);
  if (!d) return 0;
  size_t p = i + d;
  auto exp_at = [&](size_t q) -> size_t {
    if (q < s.size() && (s[q] == 'e' || s[q] == 'E')) {
      size_t r = q + 1;
      if (r < s.size() && (s[r] == '+' || s[r] == '-')) ++r;
      size_t ed = match_digits(s, r);
      if (ed) return r + ed;
    }
    return 0;
  };
  if (p < s.size() && s[p] == '.') {
    size_t fd = match_digits(s, p + 1);
    if (fd) {
      size_t q = p + 1 + fd;
      if (size_t e = exp_at(q)) return e - i;
      return q - i;
    }
  }
  if (size_t e = exp_at(p)) return e - i;
  return 0;
}

// Integer literal per Jinja2: 0b/0o/0x with optional single underscores, or decimal.
size_t match_int(std::string_view s, size_t i, int& base) {
  auto prefixed = [&](char p, auto ok) -> size_t {
    if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] == p || s[i + 1] == p - 32)) {
      size_t j = i + 2, last = 0;
      while (j < s.size()) {
        size_t k = j;
        if (s[k] == '_') ++k;
        if (k < s.size() && ok(s[k])) {
          j = k + 1;
          last = j;
        } else {
          break;
        }
      }
      if (last) return last - i;
    }
    return 0;
  };
  size_t n;
  if ((n = prefixed('b', [](char c) { return c == '0' || c == '1'; }))) { base = 2; return n; }
  if ((n = prefixed('o', [](char c) { return c >= '0' && c <= '7'; }))) { base = 8; return n; }
  if ((n = prefixed('x', [](char c) { return hexval(c) >= 0; }))) { base = 16; return n; }
  base = 10;
  if (i < s.size() && s[i] >= '1' && s[i] <= '9') {
    size_t j = i + 1;
    while (j < s.size()) {
      size_t k = j;
      if (s[k] == '_') ++k;
      if (k < s.size() && isdigit(static_cast<unsigned char>(s[k]))) j = k + 1;
      else break;
    }
    return j - i;
  }
  if (i < s.size() && s[i] == '0') {
    size_t j = i + 1;
    while (j < s.size()) {
      size_t k = j;
      if (s[k] == '_') ++k;
      if (k < s.size() && s[k] == '0') j = k + 1;
      else break;
    }
    return j - i;
  }
  return 0;
}

// Converts an integer literal (underscores removed) of any size to a Value.
Value int_value(std::string_view digits, int base) {
  // Decimal magnitude as little-endian base-1e9 limbs.
  std::vector<uint32_t> limbs{0};
  for (char ch : digits) {
    if (ch == '_') continue;
    uint64_t carry = static_cast<uint64_t>(hexval(ch));
    for (auto& l : limbs) {
      uint64_t v = static_cast<uint64_t>(l) * base + carry;
      l = static_cast<uint32_t>(v % 1000000000u);
      carry = v / 1000000000u;
    }
    while (carry) {
      limbs.push_back(static_cast<uint32_t>(carry % 1000000000u));
      carry /= 1000000000u;
    }
  }
  std::string dec = std::to_string(limbs.back());
  for (size_t k = limbs.size() - 1; k-- > 0;) {
    std::string part = std::to_string(limbs[k]);
    dec += std::string(9 - part.size(), '0') + part;
  }
  if (dec.size() < 19) return Value::integer(std::stoll(dec));
  return BigNum::from_decimal(dec, false).to_value();
}

// Jinja2's name pattern is a run of Python `\w` characters (letters,
// digits, underscore in any script) plus identifier-continue marks.
bool name_cp(uint32_t cp) {
  if (cp < 0x80) return cp == '_' || isalnum(static_cast<int>(cp));
  using namespace unicode;
  return has(static_cast<char32_t>(cp), static_cast<uint16_t>(kAlpha | kNumeric | kDecimal | kDigit | kIdContinue));
}

// Length of the name starting at i (0 when none).
size_t name_run(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size()) {
    uint32_t cp;
    size_t n = decode_cp(s, j, cp);
    if (!name_cp(cp)) break;
    j += n;
  }
  return j - i;
}

class Lexer {
 public:
  explicit Lexer(std::string src) : s_(std::move(src)) {}

  std::vector<Token> run() {
    try {
      while (pos_ < s_.size()) root();
    } catch (const Error& e) {
      Token t;
      t.type = Tok::Error;
      t.text = e.what();
      t.line = e.line;
      t.column = e.column;
      out_.push_back(std::move(t));
      return std::move(out_);
    }
    // The end-of-template token carries the last token's line, as Jinja2's.
    int last_line = out_.empty() ? 1 : out_.back().line;
    push(Tok::Eof, "", pos_).line = last_line;
    return std::move(out_);
  }

 private:
  std::string s_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;  // offset of the current line's first character
  bool line_starting_ = true;
  std::vector<Token> out_;
  std::vector<char> balance_;

  int col_of(size_t off) const { return static_cast<int>(off - line_start_) + 1; }

  void advance_lines(size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      if (s_[k] == '\n') {
        ++line_;
        line_start_ = k + 1;
      }
    }
  }

  Token& push(Tok t, std::string text, size_t off) {
    Token tok;
    tok.type = t;
    tok.text = std::move(text);
    tok.line = line_;
    tok.column = col_of(off);
    out_.push_back(std::move(tok));
    return out_.back();
  }

  // Emits the text before a tag after applying `-` / lstrip_blocks.
  void emit_text(size_t start, size_t end, char sign, bool lstrip_allowed) {
    std::string_view text(s_.data() + start, end - start);
    size_t keep = text.size();
    if (sign == '-') {
      keep = rstrip_len(text);
    } else if (sign != '+' && lstrip_allowed) {
      size_t nl = text.rfind('\n');
      size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
      if (l_pos > 0 || line_starting_) {
        bool only_blank = true;
        for (size_t k = l_pos; k < text.size(); ++k) {
          if (text[k] != ' ' && text[k] != '\t') {
            only_blank = false;
            break;
          }
        }
        if (only_blank) keep = l_pos;
      }
    }
    if (keep > 0) {
      Token& t = push(Tok::Data, std::string(text.substr(0, keep)), start);
      t.value = Value::string(t.text);
    }
    advance_lines(start, end);
  }

  // Matches `{%(sign)\s*NAME\s*(-%}\s*|%})` at p; returns the end offset or 0.
  size_t match_raw_tag(size_t p, const char* word, bool trim_after, char& sign) {
    if (s_.compare(p, 2, "{%") != 0) return 0;
    size_t q = p + 2;
    sign = 0;
    if (q < s_.size() && (s_[q] == '-' || s_[q] == '+')) sign = s_[q++];
    q += space_run(s_, q);
    size_t wl = strlen(word);
    if (s_.compare(q, wl, word) != 0) return 0;
    q += wl;
    q += space_run(s_, q);
    if (trim_after && s_.compare(q, 3, "+%}") == 0) return q + 3;
    if (s_.compare(q, 3, "-%}") == 0) {
      q += 3;
      return q + space_run(s_, q);
    }
    if (s_.compare(q, 2, "%}") == 0) {
      q += 2;
      if (trim_after && q < s_.size() && s_[q] == '\n') ++q;
      return q;
    }
    return 0;
  }

  void root() {
    // Earliest tag opener.
    size_t p = pos_;
    while (true) {
      p = s_.find('{', p);
      if (p == std::string::npos || p + 1 >= s_.size()) {
        emit_text(pos_, s_.size(), 0, false);
        pos_ = s_.size();
        return;
      }
      char k = s_[p + 1];
      if (k == '%' || k == '{' || k == '#') break;
      ++p;
    }
    char kind = s_[p + 1];
    char sign = 0;
    if (p + 2 < s_.size() && (s_[p + 2] == '-' || s_[p + 2] == '+')) sign = s_[p + 2];
    if (kind == '%') {
      char rsign;
      if (size_t end = match_raw_tag(p, "raw", false, rsign)) {
        emit_text(pos_, p, rsign, true);
        advance_lines(p, end);
        line_starting_ = s_[end - 1] == '\n';
        raw(end);
        return;
      }
    }
    emit_text(pos_, p, sign, kind != '{');
    size_t body = p + 2 + (sign ? 1 : 0);
    line_starting_ = false;
    if (kind == '#') {
      comment(p, body);
      return;
    }
    push(kind == '%' ? Tok::BlockBegin : Tok::VarBegin, kind == '%' ? "{%" : "{{", p);
    pos_ = body;
    tag(kind == '%');
  }

  void raw(size_t start) {
    size_t p = start;
    while (true) {
      p = s_.find("{%", p);
      if (p == std::string::npos) {
        if (start >= s_.size()) {
          pos_ = s_.size();
          return;
        }
        syntax_error("Missing end of raw directive", line_, col_of(start));
      }
      char sign;
      if (size_t end = match_raw_tag(p, "endraw", true, sign)) {
        emit_text(start, p, sign, true);
        advance_lines(p, end);
        line_starting_ = s_[end - 1] == '\n';
        pos_ = end;
        return;
      }
      p += 2;
    }
  }

  void comment(size_t open, size_t body) {
    size_t q = s_.find("#}", body);
    if (q == std::string::npos) {
      // Jinja2 only complains when some character follows the opener.
      if (body >= s_.size()) {
        pos_ = s_.size();
        return;
      }
      syntax_error("Missing end of comment tag", line_, col_of(open));
    }
    size_t end;
    if (q > body && s_[q - 1] == '-') {
      end = q + 2 + space_run(s_, q + 2);
    } else if (q > body && s_[q - 1] == '+') {
      end = q + 2;
    } else {
      end = q + 2;
      if (end < s_.size() && s_[end] == '\n') ++end;
    }
    advance_lines(open, end);
    line_starting_ = s_[end - 1] == '\n';
    pos_ = end;
  }

  // Inside {% %} or {{ }} until the matching end (ignored while brackets are open).
  void tag(bool block) {
    while (true) {
      size_t p = pos_;
      if (p >= s_.size()) return;  // the parser reports the unexpected end
      if (balance_.empty()) {
        size_t end = 0;
        if (block) {
          if (s_.compare(p, 3, "+%}") == 0) {
            end = p + 3;
          } else if (s_.compare(p, 3, "-%}") == 0) {
            end = p + 3 + space_run(s_, p + 3);
          } else if (s_.compare(p, 2, "%}") == 0) {
            end = p + 2;
            if (end < s_.size() && s_[end] == '\n') ++end;
          }
        } else {
          if (s_.compare(p, 3, "-}}") == 0) end = p + 3 + space_run(s_, p + 3);
          else if (s_.compare(p, 2, "}}") == 0) end = p + 2;
        }
        if (end) {
          push(block ? Tok::BlockEnd : Tok::VarEnd, block ? "%}" : "}}", p);
          advance_lines(p, end);
          line_starting_ = s_[end - 1] == '\n';
          pos_ = end;
          return;
        }
      }
      if (size_t ws = space_run(s_, p)) {
        advance_lines(p, p + ws);
        pos_ = p + ws;
        continue;
      }
      if (size_t n = match_float(s_, p)) {
        std::string digits;
        for (size_t k = p; k < p + n; ++k)
          if (s_[k] != '_') digits += s_[k];
        Token& t = push(Tok::Float, std::string(s_.substr(p, n)), p);
        t.value = Value::floating(strtod(digits.c_str(), nullptr));
        pos_ = p + n;
        continue;
      }
      int base;
      if (size_t n = match_int(s_, p, base)) {
        std::string_view lit(s_.data() + p, n);
        Token& t = push(Tok::Integer, std::string(lit), p);
        t.value = int_value(base == 10 ? lit : lit.substr(2), base);
        pos_ = p + n;
        continue;
      }
      unsigned char c = static_cast<unsigned char>(s_[p]);
      if (size_t n = name_run(s_, p)) {
        push(Tok::Name, s_.substr(p, n), p);
        pos_ = p + n;
        continue;
      }
      if (c == '\'' || c == '"') {
        size_t q = p + 1;
        bool closed = false;
        while (q < s_.size()) {
          if (s_[q] == '\\' && q + 1 < s_.size()) {
            q += 2;
            continue;
          }
          if (s_[q] == static_cast<char>(c)) {
            closed = true;
            break;
          }
          ++q;
        }
        if (closed) {
          int l = line_, col = col_of(p);
          std::string text = decode_string(std::string_view(s_).substr(p + 1, q - p - 1), l, col);
          Token& t = push(Tok::String, std::move(text), p);
          t.value = Value::string(t.text);
          advance_lines(p, q + 1);
          pos_ = q + 1;
          continue;
        }
      }
      static const char* const two[] = {"//", "**", "==", "!=", ">=", "<="};
      std::string op;
      for (const char* t : two) {
        if (s_.compare(p, 2, t) == 0) {
          op = t;
          break;
        }
      }
      if (op.empty() && strchr("+-/*%~[](){}><=.:|,;", c) && c != 0) op = std::string(1, static_cast<char>(c));
      if (op.empty()) {
        size_t cp_off = 0;  // Python reports the offset in code points
        for (size_t k = 0; k < p; ++k) cp_off += (static_cast<unsigned char>(s_[k]) & 0xC0) != 0x80;
        syntax_error("unexpected char " + char_repr(s_, p) + " at " + std::to_string(cp_off), line_, col_of(p));
      }
      if (op == "(" || op == "[" || op == "{") {
        balance_.push_back(op == "(" ? ')' : op == "[" ? ']' : '}');
      } else if (op == ")" || op == "]" || op == "}") {
        if (balance_.empty()) syntax_error("unexpected '" + op + "'", line_, col_of(p));
        char expected = balance_.back();
        balance_.pop_back();
        if (expected != op[0]) {
          syntax_error("unexpected '" + op + "', expected '" + std::string(1, expected) + "'", line_, col_of(p));
        }
      }
      push(Tok::Op, op, p);
      pos_ = p + op.size();
    }
  }
};

// \r\n and \r become \n; one trailing newline is dropped.
std::string normalize(std::string_view src) {
  std::string s;
  s.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (c == '\r') {
      s += '\n';
      if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
    } else {
      s += c;
    }
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  Lexer lx(normalize(source));
  return lx.run();
}

std::string describe_token(const Token& t) {
  switch (t.type) {
    case Tok::Name: return t.text;
    case Tok::Op: return t.text;
    case Tok::Data: return "template data / text";
    case Tok::VarBegin: return "begin of print statement";
    case Tok::VarEnd: return "end of print statement";
    case Tok::BlockBegin: return "begin of statement block";
    case Tok::BlockEnd: return "end of statement block";
    case Tok::String: return "string";
    case Tok::Integer: return "integer";
    case Tok::Float: return "float";
    case Tok::Eof: return "end of template";
    case Tok::Error: return "error";
  }
  return "?";
}

}  // namespace jinja
