// CsvReader: RFC 4180 quoting ("" escapes, delimiters and line breaks inside quotes), BOM, CRLF, a last record
// without a line end, header lookup by name, ragged records and malformed quotes as errors with row/line/byte.
// Expected values are written out by hand from the literal inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/io/csv_reader.h"

using namespace strobe::core;

namespace {

std::vector<std::vector<std::string>> readAllRecords(CsvReader& r) {
    std::vector<std::vector<std::string>> out;
    while (true) {
        auto more = r.next();
        EXPECT_TRUE(more.ok()) << (more.ok() ? "" : more.error().toString());
        if (!more.ok() || !more.value()) break;
        std::vector<std::string> rec;
        for (size_t i = 0; i < r.size(); ++i) rec.emplace_back(r.field(i));
        out.push_back(rec);
    }
    return out;
}

}  // namespace

TEST(CsvReader, QuotesEscapesEmbeddedCommasAndNewlines) {
    const std::string text =
        "\xEF\xBB\xBF" "Kind,Kernel_Name,Start\r\n"
        "KERNEL_DISPATCH,\"void f<int, 2>(float*)\",10\r\n"
        "KERNEL_DISPATCH,\"say \"\"hi\"\"\",20\r\n"
        "KERNEL_DISPATCH,\"two\nlines\",30";  // no line end after the last record
    CsvReader r(text, "k.csv");
    ASSERT_TRUE(r.readHeader().ok());
    ASSERT_EQ(r.header(), (std::vector<std::string>{"Kind", "Kernel_Name", "Start"}));
    EXPECT_EQ(r.column("Kernel_Name"), 1);
    EXPECT_EQ(r.column({"Missing", "Start"}), 2);
    EXPECT_EQ(r.column("kernel_name"), -1);  // exact names
    auto recs = readAllRecords(r);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0][1], "void f<int, 2>(float*)");
    EXPECT_EQ(recs[1][1], "say \"hi\"");
    EXPECT_EQ(recs[2][1], "two\nlines");
    EXPECT_EQ(recs[2][2], "30");
}

TEST(CsvReader, TrimsUnquotedFieldsAndParsesNumbers) {
    CsvReader r("timestamp, power.draw [W], name\n2024/01/02 10:00:00.000, 71.50 W, NVIDIA H100\n", "smi.csv");
    ASSERT_TRUE(r.readHeader().ok());
    EXPECT_EQ(r.column("power.draw [W]"), 1);
    auto more = r.next();
    ASSERT_TRUE(more.ok() && more.value());
    EXPECT_EQ(r.field(1), "71.50 W");
    EXPECT_EQ(r.field(2), "NVIDIA H100");
    EXPECT_FALSE(r.toDouble(1).has_value());  // "71.50 W" is not entirely a number
    CsvReader n("a,b\n 42 ,-1.5e3\n", "n.csv");
    ASSERT_TRUE(n.readHeader().ok());
    ASSERT_TRUE(n.next().value());
    EXPECT_EQ(n.toInt(0), 42);
    EXPECT_DOUBLE_EQ(*n.toDouble(1), -1500.0);
    EXPECT_FALSE(n.toInt(1).has_value());
}

TEST(CsvReader, EmptyLinesSkippedAndRowNumbersCountDataRows) {
    CsvReader r("a,b\n\n1,2\r\n\r\n3,4\n", "e.csv");
    ASSERT_TRUE(r.readHeader().ok());
    ASSERT_TRUE(r.next().value());
    EXPECT_EQ(r.row(), 1);
    EXPECT_EQ(r.line(), 3);
    ASSERT_TRUE(r.next().value());
    EXPECT_EQ(r.row(), 2);
    EXPECT_EQ(r.line(), 5);
    EXPECT_EQ(r.byteOffset(), 12);  // "a,b\n\n1,2\r\n\r\n" is 12 bytes
    EXPECT_FALSE(r.next().value());
}

TEST(CsvReader, RaggedRecordIsAnErrorNamingRowAndLine) {
    CsvReader r("a,b,c\n1,2,3\n4,5\n", "ragged.csv");
    ASSERT_TRUE(r.readHeader().ok());
    ASSERT_TRUE(r.next().value());
    auto bad = r.next();
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.file, "ragged.csv");
    EXPECT_EQ(bad.error().where.row, 2);
    EXPECT_EQ(bad.error().where.line, 3);
    EXPECT_NE(bad.error().toString().find("2 fields where the header has 3"), std::string::npos);

    CsvOptions o;
    o.allowRagged = true;
    CsvReader ok("a,b,c\n4,5\n", "ragged.csv", o);
    ASSERT_TRUE(ok.readHeader().ok());
    ASSERT_TRUE(ok.next().value());
    EXPECT_EQ(ok.field(2), "");
}

TEST(CsvReader, UnterminatedQuoteAndTextAfterQuoteAreErrors) {
    CsvReader r("a,b\n1,\"open\n2,3\n", "q.csv");
    ASSERT_TRUE(r.readHeader().ok());
    auto bad = r.next();
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().where.line, 2);
    EXPECT_EQ(bad.error().where.byteOffset, 6);  // the opening quote
    EXPECT_NE(bad.error().message.find("unterminated"), std::string::npos);

    CsvReader t("a,b\n\"x\"y,1\n", "t.csv");
    ASSERT_TRUE(t.readHeader().ok());
    auto bad2 = t.next();
    ASSERT_FALSE(bad2.ok());
    EXPECT_NE(bad2.error().message.find("after a closing quote"), std::string::npos);
}

TEST(CsvReader, EmptyTextHasNoHeader) {
    CsvReader r("", "empty.csv");
    auto s = r.readHeader();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().where.file, "empty.csv");
    EXPECT_EQ(csvHeaderOf("x, y ,\"z,w\"\n1,2,3"), (std::vector<std::string>{"x", "y", "z,w"}));
}

// Issue 20: the scan under the reader (SSE2, and the portable 8-bytes-at-a-time path) finds what a byte loop finds,
// at every length and alignment, with bytes above 0x7f around (the SWAR test must not flag them).
TEST(CsvReader, WordAndSimdScansFindWhatAByteLoopFinds) {
    std::mt19937 rng(20);
    const char alphabet[] = {'a', '0', ',', '\n', '"', '\t', static_cast<char>(0x80), static_cast<char>(0xff),
                             static_cast<char>(0x2b), static_cast<char>(0x0b)};
    std::string buf;
    for (int round = 0; round < 4000; ++round) {
        const size_t len = rng() % 80;
        buf.assign(len + 16, 'z');
        const int density = 1 + static_cast<int>(rng() % 40);  // separators from every byte to one in 40
        for (size_t i = 0; i < len; ++i)
            buf[i] = static_cast<int>(rng() % static_cast<unsigned>(density)) == 0 ? alphabet[2 + rng() % 2]
                                                                                  : alphabet[rng() % 10];
        const char* begin = buf.data() + rng() % (len + 1);
        const char* end = buf.data() + len;
        const char* expected = begin;
        while (expected < end && *expected != ',' && *expected != '\n') ++expected;
        ASSERT_EQ(csvFindEither(begin, end, ',', '\n'), expected) << "round " << round;
        ASSERT_EQ(csvFindEitherWords(begin, end, ',', '\n'), expected) << "round " << round;
    }
    EXPECT_EQ(csvFindEither(nullptr, nullptr, ',', '\n'), nullptr);
    EXPECT_EQ(csvFindEitherWords(nullptr, nullptr, ',', '\n'), nullptr);
}

// Long records (fields across the 16-byte scan width), quoted fields holding line ends: fields and the line numbers
// of errors stay what the byte-at-a-time reader gave.
TEST(CsvReader, LongFieldsAndQuotedLineEndsKeepFieldsAndLines) {
    const std::string longName(70, 'k');
    const std::string text = "name,a,b\n\"" + longName + "\",12345678901234567,\"x\ny\nz, and more text\"\n" +
                             longName + "," + longName + ",\"\"\"q\"\"\"\n1,2\n";
    CsvReader r(text, "long.csv");
    ASSERT_TRUE(r.readHeader().ok());
    ASSERT_TRUE(r.next().value());
    EXPECT_EQ(r.field(0), longName);
    EXPECT_EQ(r.toInt(1), 12345678901234567);
    EXPECT_EQ(r.field(2), "x\ny\nz, and more text");
    ASSERT_TRUE(r.next().value());
    EXPECT_EQ(r.line(), 5);  // the first record held two line ends
    EXPECT_EQ(r.field(0), longName);
    EXPECT_EQ(r.field(1), longName);
    EXPECT_EQ(r.field(2), "\"q\"");
    auto ragged = r.next();
    ASSERT_FALSE(ragged.ok());
    EXPECT_EQ(ragged.error().where.line, 6);
    EXPECT_EQ(ragged.error().where.row, 3);
}

// toInt's digits-only fast path and its fallback agree with std::from_chars on what is an integer.
TEST(CsvReader, IntegersFastPathAndFallback) {
    CsvReader r("v\n0\n000123\n999999999999999999\n9223372036854775807\n9223372036854775808\n-5\n+7\n12a\n 42 \n"
                "\"77\"\n\n",
                "i.csv");
    ASSERT_TRUE(r.readHeader().ok());
    std::vector<std::optional<int64_t>> got;
    while (r.next().value()) got.push_back(r.toInt(0));
    const std::vector<std::optional<int64_t>> want = {0,  123, 999999999999999999LL, INT64_MAX, std::nullopt, -5, 7,
                                                      std::nullopt, 42, 77};
    EXPECT_EQ(got, want);
}

// The 64-byte separator masks (SSE2 and the portable word path) flag exactly the bytes a byte loop flags.
TEST(CsvReader, SeparatorMasksFlagWhatAByteLoopFlags) {
    std::mt19937 rng(64);
    const char alphabet[] = {'a', ',', '\n', '"', static_cast<char>(0x80), static_cast<char>(0xff),
                             static_cast<char>(0x2c ^ 0x80), static_cast<char>(0x0a ^ 0x80), '\t', '9'};
    std::string buf(80, 'z');
    for (int round = 0; round < 4000; ++round) {
        const size_t len = rng() % 65;
        for (size_t i = 0; i < 80; ++i) buf[i] = alphabet[rng() % 10];
        uint64_t expected = 0;
        for (size_t i = 0; i < len; ++i)
            if (buf[i] == ',' || buf[i] == '\n') expected |= uint64_t{1} << i;
        ASSERT_EQ(csvSeparatorMask(buf.data(), len, ',', '\n'), expected) << "round " << round;
        ASSERT_EQ(csvSeparatorMaskWords(buf.data(), len, ',', '\n'), expected) << "round " << round;
    }
}
