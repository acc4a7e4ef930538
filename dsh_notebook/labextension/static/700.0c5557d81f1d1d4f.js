"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,t,o){var n=o(601),r=o.n(n),a=o(314),i=(o.n(a))()(r());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
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

.dsh-nb-ask {
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
`,""]),o.d(t,{},{A:i})},314(e){e.exports=function(e){var t=[];return t.toString=function(){return this.map(function(t){var o="",n=void 0!==t[5];return t[4]&&(o+="@supports (".concat(t[4],") {")),t[2]&&(o+="@media ".concat(t[2]," {")),n&&(o+="@layer".concat(t[5].length>0?" ".concat(t[5]):""," {")),o+=e(t),n&&(o+="}"),t[2]&&(o+="}"),t[4]&&(o+="}"),o}).join("")},t.i=function(e,o,n,r,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(n)for(var s=0;s<this.length;s++){var d=this[s][0];null!=d&&(i[d]=!0)}for(var l=0;l<e.length;l++){var c=[].concat(e[l]);n&&i[c[0]]||(void 0!==a&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=a),o&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=o),r&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=r):c[4]="".concat(r)),t.push(c))}},t}},601(e){e.exports=function(e){return e[1]}},72(e){var t=[];function o(e){for(var o=-1,n=0;n<t.length;n++)if(t[n].identifier===e){o=n;break}return o}function n(e,n){for(var r={},a=[],i=0;i<e.length;i++){var s=e[i],d=n.base?s[0]+n.base:s[0],l=r[d]||0,c="".concat(d," ").concat(l);r[d]=l+1;var p=o(c),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==p)t[p].references++,t[p].updater(u);else{var h=function(e,t){var o=t.domAPI(t);return o.update(e),function(t){t?(t.css!==e.css||t.media!==e.media||t.sourceMap!==e.sourceMap||t.supports!==e.supports||t.layer!==e.layer)&&o.update(e=t):o.remove()}}(u,n);n.byIndex=i,t.splice(i,0,{identifier:c,updater:h,references:1})}a.push(c)}return a}e.exports=function(e,r){var a=n(e=e||[],r=r||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=o(a[i]);t[s].references--}for(var d=n(e,r),l=0;l<a.length;l++){var c=o(a[l]);0===t[c].references&&(t[c].updater(),t.splice(c,1))}a=d}}},659(e){var t={};e.exports=function(e,o){var n=function(e){if(void 0===t[e]){var o=document.querySelector(e);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(e){o=null}t[e]=o}return t[e]}(e);if(!n)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");n.appendChild(o)}},540(e){e.exports=function(e){var t=document.createElement("style");return e.setAttributes(t,e.attributes),e.insert(t,e.options),t}},56(e,t,o){e.exports=function(e){var t=o.nc;t&&e.setAttribute("nonce",t)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var t=e.insertStyleElement(e);return{update:function(o){var n,r,a;n="",o.supports&&(n+="@supports (".concat(o.supports,") {")),o.media&&(n+="@media ".concat(o.media," {")),(r=void 0!==o.layer)&&(n+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),n+=o.css,r&&(n+="}"),o.media&&(n+="}"),o.supports&&(n+="}"),(a=o.sourceMap)&&"u">typeof btoa&&(n+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(n,t,e.options)},remove:function(){var e;null===(e=t).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,t){if(t.styleSheet)t.styleSheet.cssText=e;else{for(;t.firstChild;)t.removeChild(t.firstChild);t.appendChild(document.createTextNode(e))}}},959(e,t,o){var n=o(72),r=o.n(n),a=o(825),i=o.n(a),s=o(659),d=o.n(s),l=o(56),c=o.n(l),p=o(540),u=o.n(p),h=o(113),f=o.n(h),b=o(646),g={};g.styleTagTransform=f(),g.setAttributes=c(),g.insert=d().bind(null,"head"),g.domAPI=i(),g.insertStyleElement=u(),r()(b.A,g),b.A&&b.A.locals&&b.A.locals}}]);