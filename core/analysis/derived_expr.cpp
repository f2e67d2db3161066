#include "core/analysis/derived_expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace strobe::core {

// Recursive descent over: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
// unary := '-' unary | primary; primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'.
// Depth is bounded so a hostile formula cannot exhaust the stack.
class DerivedExpressionParser {
public:
    DerivedExpressionParser(DerivedExpression& out, std::string_view text) : m_out(out), m_text(text) {}

    std::optional<Error> run() {
        next();
        if (auto e = expr(0)) return e;
        if (m_kind != Tok::End) return fail("unexpected token");
        return std::nullopt;
    }

private:
    enum class Tok { End, Number, Name, Plus, Minus, Star, Slash, LParen, RParen, Comma, Bad };
    static constexpr int kMaxDepth = 64;

    DerivedExpression& m_out;
    std::string_view m_text;
    size_t m_pos = 0;
    Tok m_kind = Tok::End;
    size_t m_tokStart = 0;
    std::string_view m_tok;
    double m_number = 0;

    static bool nameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
    static bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

    Error fail(std::string_view what) const {
        std::string tok = m_kind == Tok::End ? std::string("end of formula") : fmt::format("'{}'", m_tok);
        return Error(m_out.m_where, fmt::format("formula '{}': {} {} at column {}", m_text, what, tok, m_tokStart + 1));
    }

    void next() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
        m_tokStart = m_pos;
        if (m_pos >= m_text.size()) { m_kind = Tok::End; m_tok = {}; return; }
        const char c = m_text[m_pos];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            size_t end = m_pos;
            while (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) || m_text[end] == '.' ||
                                           ((m_text[end] == '+' || m_text[end] == '-') && end > m_pos &&
                                            (m_text[end - 1] == 'e' || m_text[end - 1] == 'E'))))
                ++end;
            m_tok = m_text.substr(m_pos, end - m_pos);
            auto [ptr, ec] = std::from_chars(m_tok.data(), m_tok.data() + m_tok.size(), m_number);
            m_kind = (ec == std::errc() && ptr == m_tok.data() + m_tok.size() && std::isfinite(m_number)) ? Tok::Number
                                                                                                     : Tok::Bad;
            m_pos = end;
            return;
        }
        if (nameStart(c)) {
            size_t end = m_pos;
            while (end < m_text.size() && nameChar(m_text[end])) ++end;
            m_tok = m_text.substr(m_pos, end - m_pos);
            m_kind = Tok::Name;
            m_pos = end;
            return;
        }
        m_tok = m_text.substr(m_pos, 1);
        ++m_pos;
        switch (c) {
            case '+': m_kind = Tok::Plus; break;
            case '-': m_kind = Tok::Minus; break;
            case '*': m_kind = Tok::Star; break;
            case '/': m_kind = Tok::Slash; break;
            case '(': m_kind = Tok::LParen; break;
            case ')': m_kind = Tok::RParen; break;
            case ',': m_kind = Tok::Comma; break;
            default: m_kind = Tok::Bad; break;
        }
    }

    void emit(DerivedExpression::Op op, double number = 0, int index = 0) {
        m_out.m_program.push_back(DerivedExpression::Instr{op, number, index});
    }

    std::optional<Error> expr(int depth) {
        if (depth > kMaxDepth) return fail("formula nested too deeply near");
        if (auto e = term(depth)) return e;
        while (m_kind == Tok::Plus || m_kind == Tok::Minus) {
            const auto op = m_kind == Tok::Plus ? DerivedExpression::Op::Add : DerivedExpression::Op::Sub;
            next();
            if (auto e = term(depth)) return e;
            emit(op);
        }
        return std::nullopt;
    }

    std::optional<Error> term(int depth) {
        if (auto e = unary(depth)) return e;
        while (m_kind == Tok::Star || m_kind == Tok::Slash) {
            const bool div = m_kind == Tok::Slash;
            const auto at = static_cast<int>(m_tokStart);
            next();
            if (auto e = unary(depth)) return e;
            emit(div ? DerivedExpression::Op::Div : DerivedExpression::Op::Mul, 0, at);
        }
        return std::nullopt;
    }

    std::optional<Error> unary(int depth) {
        if (depth > kMaxDepth) return fail("formula nested too deeply near");
        if (m_kind == Tok::Minus) {
            next();
            if (auto e = unary(depth + 1)) return e;
            emit(DerivedExpression::Op::Neg);
            return std::nullopt;
        }
        if (m_kind == Tok::Plus) {
            next();
            return unary(depth + 1);
        }
        return primary(depth);
    }

    std::optional<Error> call(std::string_view fn, int depth) {
        const bool isMin = fn == "min";
        if (!isMin && fn != "max") return fail("unknown function; only min and max exist, not");
        next();  // '('
        int args = 0;
        while (true) {
            if (auto e = expr(depth + 1)) return e;
            ++args;
            if (m_kind == Tok::Comma) { next(); continue; }
            if (m_kind != Tok::RParen) return fail("expected ',' or ')' but found");
            next();
            break;
        }
        emit(isMin ? DerivedExpression::Op::Min : DerivedExpression::Op::Max, 0, args);
        return std::nullopt;
    }

    std::optional<Error> primary(int depth) {
        switch (m_kind) {
            case Tok::Number: emit(DerivedExpression::Op::Number, m_number); next(); return std::nullopt;
            case Tok::Name: {
                const std::string_view name = m_tok;
                next();
                if (m_kind == Tok::LParen) return call(name, depth);
                auto& names = m_out.m_names;
                auto it = std::find(names.begin(), names.end(), name);
                if (it == names.end()) it = names.insert(names.end(), std::string(name));
                emit(DerivedExpression::Op::Name, 0, static_cast<int>(it - names.begin()));
                return std::nullopt;
            }
            case Tok::LParen: {
                next();
                if (auto e = expr(depth + 1)) return e;
                if (m_kind != Tok::RParen) return fail("expected ')' but found");
                next();
                return std::nullopt;
            }
            case Tok::Bad: return fail("bad token");
            default: return fail("expected a number, a name or '(' but found");
        }
    }
};

Result<DerivedExpression> DerivedExpression::parse(std::string_view text, const Location& where) {
    DerivedExpression out;
    out.m_text = std::string(text);
    out.m_where = where;
    DerivedExpressionParser p(out, out.m_text);
    if (auto e = p.run()) return *e;
    return out;
}

Result<std::optional<double>> DerivedExpression::evaluate(const Lookup& lookup) const {
    std::vector<std::optional<double>> names(m_names.size());
    for (size_t i = 0; i < m_names.size(); ++i) {
        names[i] = lookup(m_names[i]);
        if (!names[i]) return std::optional<double>{};
    }
    std::vector<double> st;
    st.reserve(m_program.size());
    for (const Instr& in : m_program) {
        switch (in.op) {
            case Op::Number: st.push_back(in.number); continue;
            case Op::Name: st.push_back(*names[static_cast<size_t>(in.index)]); continue;
            case Op::Neg: st.back() = -st.back(); continue;
            case Op::Min:
            case Op::Max: {
                const auto n = static_cast<size_t>(in.index);
                auto first = st.end() - static_cast<std::ptrdiff_t>(n);
                double v = in.op == Op::Min ? *std::min_element(first, st.end()) : *std::max_element(first, st.end());
                st.erase(first, st.end());
                st.push_back(v);
                continue;
            }
            default: break;
        }
        const double b = st.back();
        st.pop_back();
        double& a = st.back();
        switch (in.op) {
            case Op::Add: a += b; break;
            case Op::Sub: a -= b; break;
            case Op::Mul: a *= b; break;
            case Op::Div:
                if (b == 0)
                    return Error(m_where, fmt::format("formula '{}': division by zero at column {} ('{}')", m_text,
                                                      in.index + 1, m_text.substr(static_cast<size_t>(in.index))));
                a /= b;
                break;
            default: break;
        }
    }
    return std::optional<double>{st.empty() ? 0.0 : st.back()};
}

}  // namespace strobe::core
