// Off-GUI-thread work with the answer delivered back on the GUI thread: the history views open
// their own db::History per task (a connection must not cross threads) and never block the
// window on SQLite or file I/O. Callers that may issue overlapping requests start them through
// a LatestJob, which drops the answers of stale ones ("latest request wins").
#pragma once

#include <QFutureWatcher>
#include <QMessageBox>
#include <QObject>
#include <QPointer>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

namespace ps::ui {

// What a worker body threw, as a sentence for the user.
inline QString describeException(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
        return QObject::tr("Out of memory: the data is too large for this machine.");
    } catch (const std::exception& e) {
        return QObject::tr("An unexpected error stopped the task: %1").arg(QString::fromUtf8(e.what()));
    } catch (...) {
        return QObject::tr("An unexpected error of unknown kind stopped the task.");
    }
}

// The default for runAsync's failure handler: a non-blocking warning over the context's window
// (a model or other non-widget context only logs it).
inline void showAsyncFailure(QObject* context, const QString& message) {
    auto* widget = qobject_cast<QWidget*>(context);
    if (!widget) {
        qWarning("PathScope: %s", qPrintable(message));
        return;
    }
    auto* box =
        new QMessageBox(QMessageBox::Warning, QObject::tr("PathScope"), message, QMessageBox::Ok, widget->window());
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

// Runs `work()` on the global thread pool and then `done(result)` in `context`'s thread. When
// `context` dies first, `done` is dropped (the watcher dies with it); the work itself finishes
// harmlessly, since it must own everything it touches (capture by value). An exception thrown
// by `work` never reaches the GUI thread (where it would end the program): it becomes a
// message for `failed(QString)` instead, and `done` is not called.
template <class Work, class Done, class Failed>
void runAsync(QObject* context, Work work, Done done, Failed failed) {
    using Result = std::invoke_result_t<Work>;
    static_assert(!std::is_void_v<Result>, "return a value (e.g. an error text) from the work");
    struct Outcome {
        std::optional<Result> value;
        QString error;
    };
    auto* watcher = new QFutureWatcher<Outcome>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, done = std::move(done), failed = std::move(failed)]() mutable {
                         Outcome outcome = watcher->result();
                         watcher->deleteLater();
                         if (outcome.value)
                             done(std::move(*outcome.value));
                         else
                             failed(outcome.error);
                     });
    watcher->setFuture(QtConcurrent::run([work = std::move(work)]() mutable {
        Outcome outcome;
        try {
            outcome.value.emplace(work());
        } catch (...) {
            outcome.error = describeException(std::current_exception());
        }
        return outcome;
    }));
}

template <class Work, class Done>
void runAsync(QObject* context, Work work, Done done) {
    runAsync(context, std::move(work), std::move(done),
             [guard = QPointer<QObject>(context)](const QString& message) { showAsyncFailure(guard, message); });
}

// "Latest request wins" for one kind of job (hotspot's JobTracker): start() makes every earlier
// job of this tracker stale, so its answer (done or failed) is dropped; the work itself may take
// a Stale callable and stop early once overtaken. drop() makes the running job stale too.
class LatestJob {
public:
    using Stale = std::function<bool()>;

    template <class Work, class Done, class Failed>
    void start(QObject* context, Work work, Done done, Failed failed) {
        const quint64 id = ++*m_current;
        auto current = m_current;
        Stale stale = [current, id] { return current->load() != id; };
        runAsync(
            context,
            [work = std::move(work), stale]() mutable {
                if constexpr (std::is_invocable_v<Work&, const Stale&>)
                    return work(stale);
                else
                    return work();
            },
            [stale, done = std::move(done)](auto&& result) mutable {
                if (!stale()) done(std::forward<decltype(result)>(result));
            },
            [stale, failed = std::move(failed)](const QString& message) mutable {
                if (!stale()) failed(message);
            });
    }

    template <class Work, class Done>
    void start(QObject* context, Work work, Done done) {
        start(context, std::move(work), std::move(done),
              [guard = QPointer<QObject>(context)](const QString& message) { showAsyncFailure(guard, message); });
    }

    void drop() { ++*m_current; }

private:
    std::shared_ptr<std::atomic<quint64>> m_current = std::make_shared<std::atomic<quint64>>(0);
};

}  // namespace ps::ui
