'use strict';
// The animal pages (/api/animal/field and /api/animal/demo): sign in, enrol, identify, scan,
// see candidates with their photos, label the answer, list, rename, delete. Same-origin calls
// only; the session cookie set at sign-in authenticates them, and photos load from /api/blobs.
(function () {
  var $ = function (id) {
    return document.getElementById(id);
  };
  var last = { queryId: null };
  function show(x) {
    $('out').textContent = typeof x === 'string' ? x : JSON.stringify(x, null, 2);
  }
  function call(method, path, body) {
    var opts = { method: method, credentials: 'same-origin', headers: { 'accept-language': document.documentElement.lang || 'vi' } };
    if (body instanceof FormData) opts.body = body;
    else if (body) {
      opts.headers['content-type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    return fetch(path, opts)
      .then(function (r) {
        return r.json().catch(function () {
          return { ok: false, status: r.status };
        });
      })
      .then(
        function (j) {
          show(j);
          return j;
        },
        function (e) {
          show(String(e));
          return { ok: false };
        },
      );
  }
  function form(fileInput, fields) {
    var f = new FormData();
    Object.keys(fields).forEach(function (k) {
      if (fields[k]) f.append(k, fields[k]);
    });
    Array.prototype.forEach.call($(fileInput).files, function (file) {
      f.append('files', file, file.name);
    });
    return f;
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function photo(cid) {
    var i = el('img');
    i.src = '/api/blobs/' + encodeURIComponent(cid);
    i.alt = cid;
    i.loading = 'lazy';
    return i;
  }
  // One card per candidate or animal: its photos, name, species, probability and a choose button.
  function card(a, chooseLabel) {
    var c = el('div', '', 'card');
    var pics = el('div', '', 'pics');
    (a.photos || (a.cover ? [a.cover] : [])).forEach(function (p) {
      pics.appendChild(photo(p.cid));
    });
    c.appendChild(pics);
    c.appendChild(el('b', (a.name || '(chưa đặt tên)') + ' · ' + (a.species || '')));
    if (typeof a.probability === 'number') c.appendChild(el('div', 'xác suất / probability: ' + Math.round(a.probability * 100) + '%'));
    c.appendChild(el('div', a.animal_did, 'did'));
    var b = el('button', chooseLabel);
    b.addEventListener('click', function () {
      $('did').value = a.animal_did;
    });
    c.appendChild(b);
    return c;
  }
  function cards(list, label) {
    var box = $('cards');
    box.textContent = '';
    if (!list || !list.length) box.appendChild(el('p', 'Không có ứng viên · No candidates'));
    (list || []).forEach(function (a) {
      box.appendChild(card(a, label));
    });
  }
  function farm() {
    return $('farm').value.trim();
  }
  function answer(j) {
    if (j && j.query_id) last.queryId = j.query_id;
    if (j && j.ok) cards(j.candidates, 'Chọn con này · Pick');
  }
  function species() {
    return fetch('/api/species/catalog')
      .then(function (r) {
        return r.json();
      })
      .then(function (j) {
        var sel = $('species');
        (j.species || [])
          .filter(function (s) {
            return s.kind === 'animal';
          })
          .forEach(function (s) {
            var o = el('option', s.name_vi + ' · ' + s.name_en);
            o.value = s.id;
            sel.appendChild(o);
          });
      });
  }
  var acts = {
    login: function () {
      return call('POST', '/api/login', { username: $('user').value, password: $('pass').value });
    },
    signup: function () {
      return call('POST', '/api/signup', { username: $('user').value, password: $('pass').value });
    },
    enroll: function () {
      return call('POST', '/api/animal/enroll', form('enPhotos', { farm_id: farm(), species: $('species').value, name: $('name').value }));
    },
    identify: function () {
      return call('POST', '/api/animal/identify', form('idPhoto', { farm_id: farm() })).then(answer);
    },
    scan: function () {
      return call('POST', '/api/animal/scan', form('idPhoto', { farm_id: farm() })).then(answer);
    },
    detect: function () {
      return call('POST', '/api/animal/detect', form('idPhoto', { farm_id: farm() }));
    },
    verify: function () {
      return call('POST', '/api/animal/verify', form('idPhoto', { animal_did: $('did').value })).then(function (j) {
        if (j.candidate) cards([j.candidate], 'Chọn · Pick');
        if (j.query_id) last.queryId = j.query_id;
      });
    },
    correct: function () {
      return call('POST', '/api/animal/identify_verdict', { query_id: last.queryId || '', verdict: 'correct' });
    },
    other: function () {
      return call('POST', '/api/animal/identify_verdict', { query_id: last.queryId || '', verdict: 'other', correct_did: $('did').value });
    },
    unknown: function () {
      return call('POST', '/api/animal/identify_verdict', { query_id: last.queryId || '', verdict: 'unknown_ok' });
    },
    list: function () {
      return call('GET', '/api/animal/list?farm_id=' + encodeURIComponent(farm())).then(function (j) {
        if (j.ok) cards(j.animals, 'Chọn · Pick');
      });
    },
    rename: function () {
      return call('POST', '/api/animal/rename', { animal_did: $('did').value, name: $('newName').value });
    },
    describe: function () {
      return call('GET', '/api/animal/' + encodeURIComponent($('did').value) + '?describe=true');
    },
    drift: function () {
      return call('GET', '/api/animal/drift/report?farm_id=' + encodeURIComponent(farm()));
    },
    remove: function () {
      if (!window.confirm('Xoá con vật này? · Delete this animal?')) return;
      return call('DELETE', '/api/animal/' + encodeURIComponent($('did').value));
    },
  };
  document.addEventListener('click', function (e) {
    var act = e.target && e.target.getAttribute && e.target.getAttribute('data-act');
    if (act && acts[act]) acts[act]();
  });
  species();
})();
