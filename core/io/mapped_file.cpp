#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strobe::core {

namespace {
std::string errnoText(int err) { return std::string(std::strerror(err)); }

// Closes a descriptor on every path out of open().
struct FdGuard {
    int fd = -1;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
};
}  // namespace

MappedFile::~MappedFile() {
    if (m_mapBase != nullptr) ::munmap(m_mapBase, m_size);
}

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
    FdGuard fd;
    do {
        // O_NONBLOCK: a FIFO at `path` must not block the open (fstat rejects it right after).
        fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (fd.fd < 0 && errno == EINTR);
    if (fd.fd < 0) return Error(Location{path}, "cannot open for reading: " + errnoText(errno));

    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) return Error(Location{path}, "cannot stat: " + errnoText(errno));
    if (!S_ISREG(st.st_mode)) return Error(Location{path}, "not a regular file");
    if (st.st_size < 0) return Error(Location{path}, "negative file size");

    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = path;
    file->m_size = static_cast<size_t>(st.st_size);
    file->m_device = static_cast<uint64_t>(st.st_dev);
    file->m_inode = static_cast<uint64_t>(st.st_ino);
    if (file->m_size == 0) {
        static const char kEmpty = 0;
        file->m_data = &kEmpty;
        return std::shared_ptr<const MappedFile>(std::move(file));
    }
    void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        file->m_size = 0;
        return Error(Location{path}, "cannot map into memory: " + errnoText(err));
    }
    file->m_mapBase = p;
    file->m_data = static_cast<const char*>(p);
    return std::shared_ptr<const MappedFile>(std::move(file));
}

void MappedFile::advise(Access access, size_t offset, size_t length) const {
    if (m_mapBase == nullptr || offset >= m_size) return;
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t begin = offset - offset % page;
    const size_t end = length > m_size - offset ? m_size : offset + length;
    int advice = MADV_NORMAL;
    switch (access) {
    case Access::Normal: advice = MADV_NORMAL; break;
    case Access::Sequential: advice = MADV_SEQUENTIAL; break;
    case Access::Random: advice = MADV_RANDOM; break;
    case Access::WillNeed: advice = MADV_WILLNEED; break;
    case Access::Release: advice = MADV_DONTNEED; break;
    }
    ::madvise(static_cast<char*>(m_mapBase) + begin, end - begin, advice);
}

}  // namespace strobe::core
