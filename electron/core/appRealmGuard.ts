/**
 * The first script of every MCP App's page (the sandbox proxy writes it into the app's srcdoc,
 * right after the CSP meta tag, so it runs before any script of the app): it takes WebRTC away.
 *
 * Why a script: CSP has no say over WebRTC. `RTCPeerConnection` with a STUN or TURN server sends
 * UDP wherever the app names, whatever `connect-src` says; CSP3's `webrtc 'block'` is not
 * implemented by Chromium (156 logs "Unrecognized Content-Security-Policy directive 'webrtc'"),
 * and the switches that would stop it (an IP-handling policy, launch flags) belong to the browser,
 * not to a page — in browser mode they are not ours (the desktop app sets the policy too:
 * electron/shell/harden.ts).
 *
 * What it does, in every realm the app can reach synchronously:
 * - the WebRTC constructors (`RTCPeerConnection`, `webkitRTCPeerConnection`, `RTCIceTransport`)
 *   become functions that throw `NotAllowedError`, fixed in place (not writable, not configurable);
 * - a fresh realm is what a nested frame brings, so: when the app declared no frame origins
 *   (`frame-src 'none'`, the default) every nested frame is removed as it is inserted — inside the
 *   very DOM call that inserted it, before the app can touch `window[0]`, and by a
 *   MutationObserver for frames the parser inserts (before the frame's srcdoc can load); with
 *   declared frame origins, frames without an http(s) `src` (srcdoc, about:, data:, blob:,
 *   javascript:) are removed the same way, and the initial blank document of a kept frame is guarded
 *   before it is handed back.
 *
 * What remains (README): with declared frame origins, the declared pages are other origins — the
 * host cannot reach their realms. (A blank frame of the app's is another opaque origin too, the
 * app's frame being sandboxed without allow-same-origin; it is guarded all the same wherever it is
 * reachable.)
 *
 * Plain JavaScript in a string (it runs in the app's frame, not in this bundle); it reads the
 * policy it runs under from the meta tag the proxy wrote just before it.
 */
export const APP_REALM_GUARD_SCRIPT = `(() => {
  'use strict';
  const MESSAGE = 'WebRTC is not available to MCP Apps in MiniHarness: an app sends nothing beyond the origins its resource declares.';
  const WEBRTC = ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport'];
  const FRAMES = 'iframe,frame,object,embed,fencedframe,portal';
  const FRAME_NAMES = { iframe: 1, frame: 1, object: 1, embed: 1, fencedframe: 1, portal: 1 };
  // Everything used after the app's code starts is taken now: the app may replace any prototype's method later.
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getDescriptor = Object.getOwnPropertyDescriptor;
  const hasOwn = Object.prototype.hasOwnProperty;
  const getter = (proto, name) => getDescriptor(proto, name).get;
  const exec = RegExp.prototype.exec;
  const trim = String.prototype.trim;
  const toText = String;
  const weakHas = WeakSet.prototype.has;
  const weakAdd = WeakSet.prototype.add;
  const observeWith = MutationObserver.prototype.observe;
  const localNameOf = getter(Element.prototype, 'localName');
  const nodeTypeOf = getter(Node.prototype, 'nodeType');
  const childElementCountOf = getter(Element.prototype, 'childElementCount');
  const parentOf = getter(Node.prototype, 'parentNode');
  const hasAttribute = Element.prototype.hasAttribute;
  const getAttribute = Element.prototype.getAttribute;
  const removeNode = Element.prototype.remove;
  const listLength = getter(NodeList.prototype, 'length');
  const listItem = NodeList.prototype.item;
  const recordType = getter(MutationRecord.prototype, 'type');
  const recordTarget = getter(MutationRecord.prototype, 'target');
  const recordAdded = getter(MutationRecord.prototype, 'addedNodes');
  const frameWindow = {
    iframe: getter(HTMLIFrameElement.prototype, 'contentWindow'),
    frame: getter(HTMLFrameElement.prototype, 'contentWindow'),
  };
  const queryAll = {
    element: Element.prototype.querySelectorAll,
    document: Document.prototype.querySelectorAll,
    fragment: DocumentFragment.prototype.querySelectorAll,
  };
  const policyMeta = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
  const policy = policyMeta ? String(policyMeta.getAttribute('content') || '') : '';
  // frame-src 'none' (no frameDomains declared, the default): no nested frame at all.
  const noFrames = !/frame-src (?!'none')/.test(policy);
  const guarded = new WeakSet();
  const roots = [];
  let sweeping = false;

  function blockWebRtc(w) {
    for (let i = 0; i < WEBRTC.length; i++) {
      const name = WEBRTC[i];
      if (!getDescriptor(w, name)) continue;
      const DOMExceptionOf = w.DOMException;
      const Blocked = function () {
        throw new DOMExceptionOf(MESSAGE, 'NotAllowedError');
      };
      try {
        defineProperty(w, name, { value: Blocked, writable: false, enumerable: false, configurable: false });
      } catch {
        // Already fixed.
      }
    }
  }

  // The node's type without throwing (exceptions are slow, and this runs on every insertion): 0 for no node.
  function typeOf(node) {
    if (node === null || typeof node !== 'object') return 0;
    try {
      return apply(nodeTypeOf, node, []);
    } catch {
      return 0;
    }
  }

  function isFrame(node) {
    return apply(hasOwn, FRAME_NAMES, [apply(localNameOf, node, [])]);
  }

  // A frame the app may keep: it declared frame origins, and the frame loads an http(s) page (CSP decides which).
  function mayKeep(frame) {
    if (noFrames) return false;
    const name = apply(localNameOf, frame, []);
    if (name !== 'iframe' && name !== 'frame') return false;
    if (apply(hasAttribute, frame, ['srcdoc'])) return false;
    const src = apply(trim, toText(apply(getAttribute, frame, ['src']) || ''), []);
    return apply(exec, /^https?:/i, [src]) !== null;
  }

  function settleFrame(frame) {
    if (!mayKeep(frame)) {
      apply(removeNode, frame, []);
      return;
    }
    let inner = null;
    try {
      inner = apply(frameWindow[apply(localNameOf, frame, [])], frame, []);
      // Only a same-origin realm (the blank document before the page commits) can be guarded; another origin throws here.
      if (inner) void inner.document;
    } catch {
      return;
    }
    if (inner) guardRealm(inner);
  }

  // No instanceof, no arrays written to, no globals read: the app may have changed any of them by now.
  function settleNode(node) {
    const type = typeOf(node);
    let found;
    if (type === 1) {
      if (isFrame(node)) settleFrame(node);
      // A leaf (most insertions) has nothing inside to look at.
      if (apply(childElementCountOf, node, []) === 0) return;
      found = apply(queryAll.element, node, [FRAMES]);
    } else if (type === 9) found = apply(queryAll.document, node, [FRAMES]);
    else if (type === 11) found = apply(queryAll.fragment, node, [FRAMES]);
    else return;
    // A static list: removing frames while walking it is safe.
    const count = apply(listLength, found, []);
    for (let i = 0; i < count; i++) settleFrame(apply(listItem, found, [i]));
  }

  // One pass at a time (removing a frame is a DOM call too).
  function settling(run) {
    if (sweeping) return;
    sweeping = true;
    try {
      run();
    } finally {
      sweeping = false;
    }
  }

  function sweepAll() {
    settling(() => {
      settleNode(document);
      for (let i = 0; i < roots.length; i++) settleNode(roots[i]);
    });
  }

  // Frames the parser (or anything else) inserted, and frames whose src changed: before the frame's page can load.
  const observer = new MutationObserver((records) =>
    settling(() => {
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        if (apply(recordType, record, []) === 'attributes') settleNode(apply(recordTarget, record, []));
        else {
          const added = apply(recordAdded, record, []);
          const count = apply(listLength, added, []);
          for (let j = 0; j < count; j++) settleNode(apply(listItem, added, [j]));
        }
      }
    }),
  );
  function observe(root) {
    apply(observeWith, observer, [root, { childList: true, subtree: true, attributes: true, attributeFilter: ['src', 'srcdoc', 'data'] }]);
  }

  // After a DOM call that may have inserted frames: its arguments, the node it parsed HTML into, or everything.
  function wrapMethod(proto, name, scope) {
    const own = proto && getDescriptor(proto, name);
    if (!own || typeof own.value !== 'function') return;
    const original = own.value;
    own.value = function () {
      const args = arguments;
      const self = this;
      const parent = scope === 'parent' && self ? apply(parentOf, self, []) : null;
      const result = apply(original, self, args);
      if (scope === 'all') sweepAll();
      else
        settling(() => {
          const count = scope === 'first' ? (args.length > 0 ? 1 : 0) : args.length;
          for (let i = 0; i < count; i++) settleNode(args[i]);
          if (scope === 'this') settleNode(self);
          if (scope === 'parent') settleNode(parent || self);
        });
      return result;
    };
    defineProperty(proto, name, own);
  }

  function wrapSetter(proto, name, scope) {
    const own = proto && getDescriptor(proto, name);
    if (!own || typeof own.set !== 'function') return;
    const set = own.set;
    own.set = function (value) {
      const parent = scope === 'parent' && this ? apply(parentOf, this, []) : null;
      apply(set, this, [value]);
      const target = scope === 'parent' ? parent : this;
      if (scope === 'all') sweepAll();
      else settling(() => settleNode(target));
    };
    defineProperty(proto, name, own);
  }

  function wrapFrameGetter(proto, name) {
    const own = proto && getDescriptor(proto, name);
    if (!own || typeof own.get !== 'function') return;
    const get = own.get;
    own.get = function () {
      const value = apply(get, this, []);
      let view = null;
      try {
        view = value && name === 'contentDocument' ? value.defaultView : value;
        if (view) void view.document;
      } catch {
        view = null;
      }
      if (view) guardRealm(view);
      return value;
    };
    defineProperty(proto, name, own);
  }

  function guardRealm(w) {
    if (!w || apply(weakHas, guarded, [w])) return;
    apply(weakAdd, guarded, [w]);
    blockWebRtc(w);
    const P = (name) => (w[name] ? w[name].prototype : undefined);
    // The node these insert is their first argument (the second is a sibling already in place).
    for (const name of ['appendChild', 'insertBefore', 'replaceChild']) wrapMethod(P('Node'), name, 'first');
    for (const iface of ['Element', 'Document', 'DocumentFragment', 'CharacterData', 'DocumentType']) {
      for (const name of ['append', 'prepend', 'before', 'after', 'replaceWith', 'replaceChildren', 'moveBefore'])
        wrapMethod(P(iface), name, 'args');
    }
    wrapMethod(P('Element'), 'insertAdjacentElement', 'args');
    wrapMethod(P('Element'), 'insertAdjacentHTML', 'parent');
    for (const name of ['setHTMLUnsafe', 'setHTML']) {
      wrapMethod(P('Element'), name, 'this');
      wrapMethod(P('ShadowRoot'), name, 'this');
    }
    for (const name of ['write', 'writeln', 'execCommand', 'open']) wrapMethod(P('Document'), name, 'all');
    for (const name of ['insertNode', 'surroundContents']) wrapMethod(P('Range'), name, 'all');
    wrapSetter(P('Element'), 'innerHTML', 'this');
    wrapSetter(P('ShadowRoot'), 'innerHTML', 'this');
    wrapSetter(P('Element'), 'outerHTML', 'parent');
    wrapSetter(P('Document'), 'body', 'all');
    for (const iface of ['HTMLIFrameElement', 'HTMLFrameElement', 'HTMLObjectElement']) {
      wrapFrameGetter(P(iface), 'contentWindow');
      wrapFrameGetter(P(iface), 'contentDocument');
    }
    // Shadow trees (open or closed) are swept and observed like the document.
    const attachProto = P('Element');
    const attach = attachProto && getDescriptor(attachProto, 'attachShadow');
    if (attach && typeof attach.value === 'function') {
      const original = attach.value;
      attach.value = function () {
        const root = apply(original, this, arguments);
        defineProperty(roots, roots.length, { value: root, writable: true, enumerable: true, configurable: true });
        observe(root);
        return root;
      };
      defineProperty(attachProto, 'attachShadow', attach);
    }
    if (w !== window) {
      try {
        observe(w.document);
      } catch {
        // not reachable
      }
    }
  }

  guardRealm(window);
  observe(document);
})();`;
