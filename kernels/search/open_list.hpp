// The open list of the CPU best-first searches (A*, bidirectional A*, batch.cpu): a binary
// min-heap of 16-byte entries on f, among equal f the larger g first (nearer the goal, so
// fewer tied vertices get expanded). Deletion is lazy: an improved vertex is pushed again
// and entries of closed vertices are dropped when they reach the top.
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/map/grid_map.hpp"

namespace ps {

// g is kept (as float) only to break ties in f: 16-byte entries keep more of the heap in cache.
struct OpenEntry {
    double f;
    float g;
    Vertex v;
};

class OpenList {
public:
    void reserve(std::size_t n) { m_items.reserve(n); }
    void clear() { m_items.clear(); }
    bool empty() const { return m_items.empty(); }
    std::size_t size() const { return m_items.size(); }
    const OpenEntry& top() const { return m_items.front(); }

    void push(const OpenEntry& e) {
        std::size_t i = m_items.size();
        m_items.push_back(e);
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!before(e, m_items[parent])) break;
            m_items[i] = m_items[parent];
            i = parent;
        }
        m_items[i] = e;
    }

    void pop() {
        const OpenEntry last = m_items.back();
        m_items.pop_back();
        const std::size_t n = m_items.size();
        if (n == 0) return;
        // Bottom-up: walk the hole down along the smaller children to a leaf, then sift the
        // last entry up from there. One comparison per level instead of two; `last` came from
        // the bottom, so it rarely climbs far.
        std::size_t i = 0;
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && before(m_items[child + 1], m_items[child])) ++child;
            m_items[i] = m_items[child];
            i = child;
        }
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!before(last, m_items[parent])) break;
            m_items[i] = m_items[parent];
            i = parent;
        }
        m_items[i] = last;
    }

    // top() and pop() in one.
    OpenEntry take() {
        const OpenEntry e = top();
        pop();
        return e;
    }

private:
    // Bitwise, not short-circuit: ties in f are common (octile distances), and two flag tests
    // are cheaper than a mispredicted branch.
    static bool before(const OpenEntry& a, const OpenEntry& b) {
        return bool(int(a.f < b.f) | (int(a.f == b.f) & int(a.g > b.g)));
    }

    std::vector<OpenEntry> m_items;
};

}  // namespace ps
