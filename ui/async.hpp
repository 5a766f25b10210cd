// Off-GUI-thread work with the answer delivered back on the GUI thread: the history views open
// their own db::History per task (a connection must not cross threads) and never block the
// window on SQLite or file I/O. Callers that may issue overlapping requests keep a generation
// counter and ignore answers of stale ones ("latest request wins").
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <type_traits>
#include <utility>

namespace ps::ui {

// Runs `work()` on the global thread pool and then `done(result)` in `context`'s thread. When
// `context` dies first, `done` is dropped (the watcher dies with it); the work itself finishes
// harmlessly, since it must own everything it touches (capture by value).
template <class Work, class Done>
void runAsync(QObject* context, Work work, Done done) {
    using Result = std::invoke_result_t<Work>;
    static_assert(!std::is_void_v<Result>, "return a value (e.g. an error text) from the work");
    auto* watcher = new QFutureWatcher<Result>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, done = std::move(done)]() mutable {
                         done(watcher->result());
                         watcher->deleteLater();
                     });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

}  // namespace ps::ui
