;;; drive.el --- Drive AutoDD sessions in Emacs (batch mode) with eglot; write what happened as JSON.
;;   AUTODD_LSP_CMD  JSON list: the server command
;;   AUTODD_RESULT   where to write the JSON
;; Started as: emacs --batch -Q -l drive.el   (in a folder holding prog.py and slow.py)
;; The person's answers come on stdin, one line per prompt, in the order Emacs asks:
;; the code action to run, the failure to keep (eglot's own completing-read prompts), and
;; "y" when eglot asks before its first edit of prog.min.py, a file it is not visiting yet.
;; 1. Minimize prog.py from the code action, to the end; 2. minimize slow.py in place and
;; stop it with autodd.cancel {runId}.  Both runs' buffers must end as their files.

(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")  ; Debian's elpa-eglot
(package-initialize)
(require 'eglot)
(require 'json)
(require 'cl-lib)

(defvar autodd-out nil "What happened: an alist written as JSON at the end.")
(defvar autodd-finished (make-hash-table :test #'equal) "runId -> autodd/finished params.")
(defvar autodd-progress-count 0)
(defvar autodd-last-progress nil)

(defun autodd-note (key value) (push (cons key value) autodd-out))

(defun autodd-wait (predicate seconds)
  "Process input until PREDICATE holds or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun autodd-buffer-text (path)
  (let ((buffer (find-buffer-visiting path)))
    (and buffer (with-current-buffer buffer
                  (buffer-substring-no-properties (point-min) (point-max))))))

;; What an init file adds to see a run: its progress fields and its end.
(cl-defmethod eglot-handle-notification (_server (_method (eql autodd/progress)) &rest params)
  (setq autodd-progress-count (1+ autodd-progress-count)
        autodd-last-progress params)
  (message "AutoDD: %s · %s → %s nodes · %s candidates"
           (plist-get params :pass)
           (plist-get (plist-get params :original) :nodes)
           (plist-get (plist-get params :size) :nodes)
           (plist-get params :candidates)))
(cl-defmethod eglot-handle-notification (_server (_method (eql autodd/finished)) &rest params)
  (puthash (plist-get params :runId) params autodd-finished))
(cl-defmethod eglot-handle-notification (_server (_method (eql autodd/notice)) &rest _params) nil)

(setq eglot-confirm-server-initiated-edits nil
      eglot-workspace-configuration '((:autodd . (:backend "subproc" :timeout 30))))

(condition-case err
    (let* ((command (append (json-read-from-string (getenv "AUTODD_LSP_CMD")) nil))
           (prog-path (expand-file-name "prog.py"))
           (slow-path (expand-file-name "slow.py")))
      (add-to-list 'eglot-server-programs `(python-mode . ,command))
      (find-file prog-path)
      (apply #'eglot (eglot--guess-contact))
      (autodd-wait (lambda () (eglot-current-server)) 30)
      (let ((server (eglot-current-server)))
        (autodd-note 'connected (and server t))

        ;; 1. The code action, chosen at eglot's prompt; the failure, chosen at the server's question.
        (goto-char (point-min))
        (let* ((actions (eglot-code-actions (point) (point)))
               (titles (mapcar (lambda (a) (plist-get a :title)) actions)))
          (autodd-note 'code_actions (vconcat titles)))
        ;; A key press, not a mouse click, brought us here: eglot asks with completing-read.
        (let ((last-nonmenu-event ?\r))
          (eglot--read-execute-code-action (eglot-code-actions (point) (point)) server))
        (autodd-note 'after_code_action t)
        (autodd-wait (lambda () (> (hash-table-count autodd-finished) 0)) 90)
        (let ((first (car (hash-table-values autodd-finished))))
          (autodd-note 'first (or first :null))
          (autodd-note 'output_buffer (or (autodd-buffer-text (expand-file-name "prog.min.py")) :null)))
        (autodd-note 'source_buffer (autodd-buffer-text prog-path))
        (autodd-note 'progress_count autodd-progress-count)
        (autodd-note 'last_progress (or autodd-last-progress :null))

        ;; 2. In place, stopped with autodd.cancel {runId}.
        (find-file slow-path)
        (autodd-wait (lambda () (eglot-managed-p)) 10)
        (autodd-note 'slow_managed (and (eglot-managed-p) t))
        (let* ((reply (eglot-execute-command
                       server 'autodd.minimize
                       (vector (list :uri (eglot--path-to-uri slow-path)
                                     :errMsg "slow-sentinel" :output "inPlace"))))
               (run-id (plist-get reply :runId))
               (counted autodd-progress-count))
          (autodd-note 'second_reply reply)
          ;; Let it go on a while: some candidates run, some edits land in the buffer.
          (autodd-wait (lambda () (> autodd-progress-count (+ counted 3))) 30)
          (autodd-note 'cancel_reply
                       (eglot-execute-command server 'autodd.cancel (vector (list :runId run-id))))
          (autodd-wait (lambda () (gethash run-id autodd-finished)) 30)
          (autodd-note 'second (or (gethash run-id autodd-finished) :null))
          (autodd-note 'slow_buffer (autodd-buffer-text slow-path)))
        (eglot-shutdown server)))
  (error (autodd-note 'error (error-message-string err))))

(with-temp-file (getenv "AUTODD_RESULT")
  (insert (json-encode autodd-out)))
(kill-emacs 0)
