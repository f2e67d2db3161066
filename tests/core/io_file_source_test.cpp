// FileSource: plain and gzip (by magic bytes, not name), concatenated members, trailing bytes, corrupt and
// truncated streams, missing files and directories.
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/io/file_source.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe::core;

namespace {

std::string data(const std::string& rel) { return std::string(STROBE_TEST_DATA_DIR) + "/" + rel; }

using strobe::test::readAll;

// Reads everything in pieces of `piece` bytes.
Result<std::string> drain(FileSource& src, size_t piece) {
    std::string out;
    std::string buf(piece, '\0');
    for (;;) {
        auto r = src.read(buf.data(), piece);
        if (!r.ok()) return r.error();
        if (*r == 0) return out;
        out.append(buf.data(), *r);
    }
}

// Opens `path` and reads it all in pieces of `piece` bytes. `source` stays open for its warnings and gzip flag;
// null (and `text` its error) when the file did not open.
struct Drained {
    std::unique_ptr<FileSource> source;
    Result<std::string> text;
};
Drained openAndDrain(const std::string& path, size_t piece) {
    auto src = FileSource::open(path);
    if (!src.ok()) return {nullptr, src.error()};
    auto text = drain(**src, piece);
    return {std::move(*src), std::move(text)};
}

bool containsIoFileSource(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(IoFileSource, PlainAndGzipGiveTheSameText) {
    const std::string plain = readAll(data("small/current_schema.json"));
    ASSERT_EQ(plain.size(), 4142u);
    for (const char* name : {"small/current_schema.json", "small/current_schema.json.gz", "small/two_members.json.gz"}) {
        for (size_t piece : {1u, 7u, 4096u, 1u << 20}) {
            SCOPED_TRACE(::testing::Message() << name << " piece " << piece);
            auto [src, text] = openAndDrain(data(name), piece);
            ASSERT_TRUE(src) << text.error().toString();
            ASSERT_TRUE(text.ok()) << text.error().toString();
            EXPECT_EQ(*text, plain);
            EXPECT_EQ(src->produced(), plain.size());
            EXPECT_TRUE(src->takeWarnings().empty());
        }
    }
    auto gz = FileSource::open(data("small/current_schema.json.gz"));
    ASSERT_TRUE(gz.ok());
    EXPECT_TRUE((*gz)->gzip());
    ASSERT_TRUE((*gz)->gzipSizeHint().has_value());
    EXPECT_EQ(*(*gz)->gzipSizeHint(), 4142u);  // ISIZE trailer
    EXPECT_EQ((*gz)->expectedTextSize(), 4142u);
}

TEST(IoFileSource, GzipIsDetectedByContentNotName) {
    const auto dir = std::filesystem::temp_directory_path();
    const auto gzNamedJson = dir / "strobe_io_gzip_named.json";
    const auto jsonNamedGz = dir / "strobe_io_plain_named.json.gz";
    std::filesystem::copy_file(data("small/current_schema.json.gz"), gzNamedJson,
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(data("small/array_closed.json"), jsonNamedGz,
                               std::filesystem::copy_options::overwrite_existing);
    auto [a, textA] = openAndDrain(gzNamedJson.string(), 1000);
    ASSERT_TRUE(a);
    EXPECT_TRUE(a->gzip());
    ASSERT_TRUE(textA.ok());
    EXPECT_EQ(textA->size(), 4142u);
    auto [b, textB] = openAndDrain(jsonNamedGz.string(), 1000);
    ASSERT_TRUE(b);
    EXPECT_FALSE(b->gzip());
    ASSERT_TRUE(textB.ok());
    EXPECT_EQ(*textB, readAll(data("small/array_closed.json")));
    std::filesystem::remove(gzNamedJson);
    std::filesystem::remove(jsonNamedGz);
}

TEST(IoFileSource, TrailingGarbageIsAWarning) {
    auto [src, text] = openAndDrain(data("bad/trailing_garbage.json.gz"), 512);
    ASSERT_TRUE(src);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text->size(), 4142u);
    auto warnings = src->takeWarnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(containsIoFileSource(warnings[0].message, "8 bytes"));
    EXPECT_TRUE(containsIoFileSource(warnings[0].message, "compressed byte 1336"));
    EXPECT_EQ(warnings[0].where.file, data("bad/trailing_garbage.json.gz"));
}

TEST(IoFileSource, CorruptGzipIsAnErrorWithBothOffsets) {
    auto [src, text] = openAndDrain(data("bad/corrupt.json.gz"), 100);
    ASSERT_TRUE(src);
    ASSERT_FALSE(text.ok());
    const Error& e = text.error();
    EXPECT_EQ(e.where.file, data("bad/corrupt.json.gz"));
    EXPECT_TRUE(containsIoFileSource(e.message, "corrupt gzip stream at compressed byte"));
    EXPECT_TRUE(containsIoFileSource(e.message, "decompressed byte"));
    EXPECT_GE(e.where.byteOffset, 0);
    EXPECT_LE(e.where.byteOffset, 4142);
}

TEST(IoFileSource, TruncatedGzipEndsTheTextWithAWarning) {
    auto [src, text] = openAndDrain(data("bad/truncated.json.gz"), 300);
    ASSERT_TRUE(src);
    ASSERT_TRUE(text.ok());
    EXPECT_GT(text->size(), 0u);
    EXPECT_LT(text->size(), 4142u);
    EXPECT_EQ(*text, readAll(data("small/current_schema.json")).substr(0, text->size()));
    auto warnings = src->takeWarnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(containsIoFileSource(warnings[0].message, "ends early at compressed byte 801"));  // the file's size
}

TEST(IoFileSource, MissingFileAndDirectoryAreErrors) {
    auto missing = FileSource::open(data("bad/nope.json"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().where.file, data("bad/nope.json"));
    EXPECT_TRUE(containsIoFileSource(missing.error().message, "No such file"));
    auto dir = FileSource::open(data("bad"));
    ASSERT_FALSE(dir.ok());
    EXPECT_TRUE(containsIoFileSource(dir.error().message, "directory"));
}

TEST(IoFileSource, MemorySourceReadsGzipToo) {
    const std::string gz = readAll(data("small/current_schema.json.gz"));
    auto src = FileSource::fromMemory(gz, "mem.json.gz");
    EXPECT_TRUE(src->gzip());
    auto text = drain(*src, 333);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, readAll(data("small/current_schema.json")));
}
