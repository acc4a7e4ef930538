"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,t,o){var r=o(601),n=o.n(r),a=o(314),i=(o.n(a))()(n());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
/* fixed colours, not the theme's: a dark theme's light font colour on a light orange read at
   1.3:1. Dark text on light orange is about 15:1 in every theme (a browser test computes it). */
.dsh-waiting {
  border: 1px solid #e65100;
  border-radius: 10px;
  background: #ffe0b2;
  color: #1a1a1a;
  font-size: var(--jp-ui-font-size1, 13px);
  line-height: 18px;
  padding: 0 8px;
  margin: 2px 4px;
  cursor: pointer;
}

.dsh-waiting.lm-mod-hidden {
  display: none;
}

.dsh-waiting-status {
  margin: 0 4px;
  line-height: 16px;
}

/* the tab badge: the count sits between the label and the close icon */
/* JupyterLab draws an inactive tab's separator with ::after (absolute, full width): every
   property it may set is reset here, so the badge stays a small pill in the flow beside the
   name and never a bar over it. Black on #f57c00: about 7.8:1. */
.lm-TabBar .lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting]::after {
  content: attr(data-dsh-waiting);
  position: static;
  inset: auto;
  transform: none;
  flex: 0 0 auto;
  width: auto;
  height: auto;
  order: 1;
  align-self: center;
  min-width: 14px;
  margin-left: 4px;
  padding: 0 4px;
  border: none;
  border-radius: 7px;
  background: #f57c00;
  color: #000;
  font-size: 10px;
  line-height: 14px;
  text-align: center;
}

.lm-TabBar-tab.dsh-mod-waiting .lm-TabBar-tabCloseIcon {
  order: 2;
}

/* agent cells: the bar under a %%dsh cell whose run wrote cells */
.dsh-agent-cells-bar {
  display: flex;
  align-items: center;
  gap: 8px;
  margin: 2px 0 4px var(--jp-cell-prompt-width, 64px);
  font-size: var(--jp-ui-font-size1, 13px);
  color: var(--jp-ui-font-color2, #616161);
}

.dsh-remove-run-cells {
  border: 1px solid var(--jp-border-color1, #bdbdbd);
  border-radius: 3px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #212121);
  font-size: var(--jp-ui-font-size1, 13px);
  padding: 0 8px;
  cursor: pointer;
}

/* dsh-notebook: Insert below / Copy on a settled transcript's Python code, Ask dsh on errors */
.dsh-nb-btn {
  border: 1px solid var(--jp-border-color1, #bdbdbd);
  border-radius: 3px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #333);
  font-size: var(--jp-ui-font-size0, 11px);
  line-height: 16px;
  padding: 0 6px;
  cursor: pointer;
}

.dsh-nb-btn:hover {
  border-color: var(--jp-brand-color1, #1976d2);
}

.dsh-nb-code-bar {
  display: flex;
  justify-content: flex-end;
  gap: 4px;
  margin: 2px 0;
}

/* Ask dsh and Fix with dsh sit in the output row beside the traceback: their own size, never
   stretched to the traceback's height */
.dsh-nb-ask,
.dsh-nb-fix {
  align-self: flex-start;
  flex: none;
  margin: 4px;
}

/* Fix with dsh: only where the notebook's kernel linked to this page (it can apply the edit) */
.jp-NotebookPanel:not([data-dsh-edits-linked]) .dsh-nb-fix {
  display: none;
}

/* the waiting button's notice when the asking cell is not in the notebook any more */
.dsh-waiting-notice {
  position: absolute;
  top: 40px;
  right: 16px;
  z-index: 10;
  max-width: 560px;
  padding: 10px 12px;
  border: 1px solid var(--jp-warn-color1, #f57c00);
  border-radius: 4px;
  background: var(--jp-layout-color1, #fff);
  color: var(--jp-ui-font-color1, #222);
  font-size: var(--jp-ui-font-size1, 13px);
  box-shadow: 0 2px 8px rgb(0 0 0 / 20%);
}

.dsh-waiting-notice-text {
  white-space: pre-wrap;
  margin-bottom: 8px;
}

/* a cell the agent just changed (and "Show in notebook"): a brief outline in the brand colour */
@keyframes dsh-agent-edited-flash {
  from {
    box-shadow: inset 4px 0 0 var(--jp-brand-color1, #1976d2);
    background-color: var(--jp-brand-color3, #bbdefb);
  }
  to {
    box-shadow: inset 4px 0 0 transparent;
    background-color: transparent;
  }
}

.jp-Cell.dsh-agent-edited {
  animation: dsh-agent-edited-flash 2s ease-out;
}

@media (prefers-reduced-motion: reduce) {
  .jp-Cell.dsh-agent-edited {
    animation: none;
    box-shadow: inset 4px 0 0 var(--jp-brand-color1, #1976d2);
  }
}

.dsh-undo-result {
  color: var(--jp-ui-font-color1, #212121);
}

.dsh-undo-run[hidden] {
  display: none;
}
`,""]),o.d(t,{},{A:i})},314(e){e.exports=function(e){var t=[];return t.toString=function(){return this.map(function(t){var o="",r=void 0!==t[5];return t[4]&&(o+="@supports (".concat(t[4],") {")),t[2]&&(o+="@media ".concat(t[2]," {")),r&&(o+="@layer".concat(t[5].length>0?" ".concat(t[5]):""," {")),o+=e(t),r&&(o+="}"),t[2]&&(o+="}"),t[4]&&(o+="}"),o}).join("")},t.i=function(e,o,r,n,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(r)for(var s=0;s<this.length;s++){var d=this[s][0];null!=d&&(i[d]=!0)}for(var c=0;c<e.length;c++){var l=[].concat(e[c]);r&&i[l[0]]||(void 0!==a&&(void 0===l[5]||(l[1]="@layer".concat(l[5].length>0?" ".concat(l[5]):""," {").concat(l[1],"}")),l[5]=a),o&&(l[2]&&(l[1]="@media ".concat(l[2]," {").concat(l[1],"}")),l[2]=o),n&&(l[4]?(l[1]="@supports (".concat(l[4],") {").concat(l[1],"}"),l[4]=n):l[4]="".concat(n)),t.push(l))}},t}},601(e){e.exports=function(e){return e[1]}},72(e){var t=[];function o(e){for(var o=-1,r=0;r<t.length;r++)if(t[r].identifier===e){o=r;break}return o}function r(e,r){for(var n={},a=[],i=0;i<e.length;i++){var s=e[i],d=r.base?s[0]+r.base:s[0],c=n[d]||0,l="".concat(d," ").concat(c);n[d]=c+1;var p=o(l),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==p)t[p].references++,t[p].updater(u);else{var h=function(e,t){var o=t.domAPI(t);return o.update(e),function(t){t?(t.css!==e.css||t.media!==e.media||t.sourceMap!==e.sourceMap||t.supports!==e.supports||t.layer!==e.layer)&&o.update(e=t):o.remove()}}(u,r);r.byIndex=i,t.splice(i,0,{identifier:l,updater:h,references:1})}a.push(l)}return a}e.exports=function(e,n){var a=r(e=e||[],n=n||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=o(a[i]);t[s].references--}for(var d=r(e,n),c=0;c<a.length;c++){var l=o(a[c]);0===t[l].references&&(t[l].updater(),t.splice(l,1))}a=d}}},659(e){var t={};e.exports=function(e,o){var r=function(e){if(void 0===t[e]){var o=document.querySelector(e);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(e){o=null}t[e]=o}return t[e]}(e);if(!r)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");r.appendChild(o)}},540(e){e.exports=function(e){var t=document.createElement("style");return e.setAttributes(t,e.attributes),e.insert(t,e.options),t}},56(e,t,o){e.exports=function(e){var t=o.nc;t&&e.setAttribute("nonce",t)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var t=e.insertStyleElement(e);return{update:function(o){var r,n,a;r="",o.supports&&(r+="@supports (".concat(o.supports,") {")),o.media&&(r+="@media ".concat(o.media," {")),(n=void 0!==o.layer)&&(r+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),r+=o.css,n&&(r+="}"),o.media&&(r+="}"),o.supports&&(r+="}"),(a=o.sourceMap)&&"u">typeof btoa&&(r+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(r,t,e.options)},remove:function(){var e;null===(e=t).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,t){if(t.styleSheet)t.styleSheet.cssText=e;else{for(;t.firstChild;)t.removeChild(t.firstChild);t.appendChild(document.createTextNode(e))}}},959(e,t,o){var r=o(72),n=o.n(r),a=o(825),i=o.n(a),s=o(659),d=o.n(s),c=o(56),l=o.n(c),p=o(540),u=o.n(p),h=o(113),f=o.n(h),b=o(646),g={};g.styleTagTransform=f(),g.setAttributes=l(),g.insert=d().bind(null,"head"),g.domAPI=i(),g.insertStyleElement=u(),n()(b.A,g),b.A&&b.A.locals&&b.A.locals}}]);