#include "core/io/file_source.h"

#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace strobe::core {

namespace {
constexpr size_t kInputBufferBytes = 256 * 1024;
constexpr unsigned char kGzipMagic0 = 0x1f;
constexpr unsigned char kGzipMagic1 = 0x8b;
}  // namespace

struct FileSource::Inflater {
    z_stream zs{};
    bool initialised = false;
    bool memberDone = false;  // the current gzip member ended; another may follow
    ~Inflater() {
        if (initialised) inflateEnd(&zs);
    }
};

FileSource::~FileSource() {
    if (m_fd >= 0) ::close(m_fd);
}

Result<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
    std::unique_ptr<FileSource> src(new FileSource());
    src->m_name = path;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        return Error(Location{path}, fmt::format("cannot open the file: {}", std::strerror(err)));
    }
    src->m_fd = fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        return Error(Location{path}, fmt::format("cannot read the file's status: {}", std::strerror(err)));
    }
    if (S_ISDIR(st.st_mode)) return Error(Location{path}, "is a directory, expected a trace file");
    src->m_fileSize = static_cast<uint64_t>(st.st_size);
    unsigned char magic[2] = {0, 0};
    if (src->m_fileSize >= 2 && ::pread(fd, magic, 2, 0) == 2 && magic[0] == kGzipMagic0 && magic[1] == kGzipMagic1)
        src->m_gzip = true;
    if (src->m_gzip && src->m_fileSize >= 18) {
        unsigned char tail[4];
        if (::pread(fd, tail, 4, static_cast<off_t>(src->m_fileSize - 4)) == 4)
            src->m_isize = static_cast<uint32_t>(tail[0]) | (static_cast<uint32_t>(tail[1]) << 8) |
                           (static_cast<uint32_t>(tail[2]) << 16) | (static_cast<uint32_t>(tail[3]) << 24);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return src;
}

std::unique_ptr<FileSource> FileSource::fromMemory(std::string_view text, std::string name) {
    std::unique_ptr<FileSource> src(new FileSource());
    src->m_name = std::move(name);
    src->m_memory = text;
    src->m_isMemory = true;
    src->m_fileSize = text.size();
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == kGzipMagic0 &&
        static_cast<unsigned char>(text[1]) == kGzipMagic1)
        src->m_gzip = true;
    if (src->m_gzip && text.size() >= 18) {
        const auto* t = reinterpret_cast<const unsigned char*>(text.data() + text.size() - 4);
        src->m_isize = static_cast<uint32_t>(t[0]) | (static_cast<uint32_t>(t[1]) << 8) |
                       (static_cast<uint32_t>(t[2]) << 16) | (static_cast<uint32_t>(t[3]) << 24);
    }
    return src;
}

uint64_t FileSource::expectedTextSize() const {
    if (!m_gzip) return m_fileSize;
    // ISIZE is the size modulo 2^32: pick the multiple of 2^32 that gives a plausible ratio (>= the file).
    if (!m_isize) return m_fileSize * 8;
    uint64_t guess = *m_isize;
    while (guess < m_fileSize) guess += (uint64_t{1} << 32);
    return guess;
}

Result<size_t> FileSource::readRaw(char* dst, size_t n) {
    if (m_isMemory) {
        const size_t left = m_memory.size() - m_consumed;
        const size_t k = std::min(left, n);
        if (k != 0) std::memcpy(dst, m_memory.data() + m_consumed, k);
        m_consumed += k;
        return k;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::read(m_fd, dst + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            Location where{m_name};
            where.byteOffset = static_cast<int64_t>(m_consumed + got);
            return Error(where, fmt::format("read error: {}", std::strerror(err)));
        }
        if (r == 0) break;
        got += static_cast<size_t>(r);
    }
    m_consumed += got;
    return got;
}

Error FileSource::gzipError(const std::string& what) const {
    Location where{m_name};
    where.byteOffset = static_cast<int64_t>(m_produced);
    const uint64_t compressed = m_inflater ? m_consumed - m_inflater->zs.avail_in : m_consumed;
    return Error(where, fmt::format("corrupt gzip stream at compressed byte {} (decompressed byte {}): {}", compressed,
                                    m_produced, what));
}

Result<size_t> FileSource::read(char* dst, size_t n) {
    if (n == 0 || m_eof) return size_t{0};
    if (!m_gzip) {
        auto r = readRaw(dst, n);
        if (r.ok()) {
            m_produced += *r;
            if (*r == 0) m_eof = true;
        }
        return r;
    }
    return readGzip(dst, n);
}

Result<size_t> FileSource::readGzip(char* dst, size_t n) {
    if (!m_inflater) {
        m_inflater = std::make_unique<Inflater>();
        if (inflateInit2(&m_inflater->zs, 15 + 16) != Z_OK) return gzipError("cannot initialise zlib");
        m_inflater->initialised = true;
        m_in.resize(std::max<size_t>(64, std::min<uint64_t>(kInputBufferBytes, m_fileSize + 16)));
    }
    z_stream& zs = m_inflater->zs;
    zs.next_out = reinterpret_cast<Bytef*>(dst);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(n, UINT32_MAX));
    const uInt wanted = zs.avail_out;
    while (zs.avail_out > 0 && !m_eof) {
        if (zs.avail_in < 2 && (zs.avail_in == 0 || m_inflater->memberDone)) {
            // Refill, keeping a lone unread byte (needed to check the next member's two magic bytes).
            size_t keep = zs.avail_in;
            if (keep) m_in[0] = static_cast<char>(*zs.next_in);
            auto r = readRaw(m_in.data() + keep, m_in.size() - keep);
            if (!r.ok()) return r.error();
            zs.next_in = reinterpret_cast<Bytef*>(m_in.data());
            zs.avail_in = static_cast<uInt>(keep + *r);
            if (*r == 0 && zs.avail_in == 0) {
                if (!m_inflater->memberDone) {
                    Location where{m_name};
                    where.byteOffset = static_cast<int64_t>(m_produced + (wanted - zs.avail_out));
                    m_warnings.push_back({Severity::Warning, where,
                                          fmt::format("the gzip stream ends early at compressed byte {} (after {} "
                                                      "decompressed bytes): the text is truncated",
                                                      m_consumed, m_produced + (wanted - zs.avail_out))});
                }
                m_eof = true;
                break;
            }
        }
        if (m_inflater->memberDone) {
            if (zs.avail_in >= 2 && zs.next_in[0] == kGzipMagic0 && zs.next_in[1] == kGzipMagic1) {
                inflateReset(&zs);
                m_inflater->memberDone = false;
                continue;
            }
            // Not another member: everything left is ignored.
            const uint64_t at = m_consumed - zs.avail_in;
            const uint64_t rest = m_fileSize > at ? m_fileSize - at : zs.avail_in;
            Location where{m_name};
            where.byteOffset = static_cast<int64_t>(m_produced + (wanted - zs.avail_out));
            m_warnings.push_back({Severity::Warning, where,
                                  fmt::format("{} bytes after the end of the gzip stream (compressed byte {}) are not "
                                              "gzip data and were ignored",
                                              rest, at)});
            zs.avail_in = 0;
            m_eof = true;
            break;
        }
        const int ret = inflate(&zs, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) {
            m_inflater->memberDone = true;
            continue;
        }
        if (ret == Z_OK) continue;
        if (ret == Z_BUF_ERROR && zs.avail_in == 0) continue;  // needs more input
        m_produced += wanted - zs.avail_out;
        return gzipError(zs.msg ? zs.msg : fmt::format("zlib error {}", ret));
    }
    const size_t got = wanted - zs.avail_out;
    m_produced += got;
    return got;
}

Result<FileText> readFileText(const std::string& path) {
    FileText out;
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
        auto src = FileSource::open(path);
        if (!src) return src.error();
        auto text = std::make_shared<std::string>();
        std::vector<char> buf(1 << 20);
        for (;;) {
            auto got = src.value()->read(buf.data(), buf.size());
            if (!got) return got.error();
            if (got.value() == 0) break;
            text->append(buf.data(), got.value());
        }
        out.fileSize = src.value()->fileSize();
        out.gzip = true;
        out.text = *text;
        out.keep = std::move(text);
        return out;
    }
    auto m = MappedFile::open(path);
    if (!m) return m.error();
    m.value()->advise(MappedFile::Access::Sequential);
    out.text = std::string_view(m.value()->data(), m.value()->size());
    out.fileSize = m.value()->size();
    out.keep = std::move(m.value());
    return out;
}

}  // namespace strobe::core
