"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,r,o){var t=o(601),n=o.n(t),a=o(314),i=(o.n(a))()(n());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
.dsh-waiting {
  border: 1px solid var(--jp-warn-color1, #f57c00);
  border-radius: 10px;
  background: var(--jp-warn-color3, #ffe0b2);
  color: var(--jp-ui-font-color0, #000);
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
.lm-TabBar-tab.dsh-mod-waiting[data-dsh-waiting]::after {
  content: attr(data-dsh-waiting);
  order: 1;
  align-self: center;
  min-width: 14px;
  margin-left: 4px;
  padding: 0 4px;
  border-radius: 7px;
  background: var(--jp-warn-color1, #f57c00);
  color: var(--jp-ui-inverse-font-color0, #fff);
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
`,""]),o.d(r,{},{A:i})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var o="",t=void 0!==r[5];return r[4]&&(o+="@supports (".concat(r[4],") {")),r[2]&&(o+="@media ".concat(r[2]," {")),t&&(o+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),o+=e(r),t&&(o+="}"),r[2]&&(o+="}"),r[4]&&(o+="}"),o}).join("")},r.i=function(e,o,t,n,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(t)for(var s=0;s<this.length;s++){var d=this[s][0];null!=d&&(i[d]=!0)}for(var c=0;c<e.length;c++){var p=[].concat(e[c]);t&&i[p[0]]||(void 0!==a&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=a),o&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=o),n&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=n):p[4]="".concat(n)),r.push(p))}},r}},601(e){e.exports=function(e){return e[1]}},72(e){var r=[];function o(e){for(var o=-1,t=0;t<r.length;t++)if(r[t].identifier===e){o=t;break}return o}function t(e,t){for(var n={},a=[],i=0;i<e.length;i++){var s=e[i],d=t.base?s[0]+t.base:s[0],c=n[d]||0,p="".concat(d," ").concat(c);n[d]=c+1;var l=o(p),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==l)r[l].references++,r[l].updater(u);else{var f=function(e,r){var o=r.domAPI(r);return o.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&o.update(e=r):o.remove()}}(u,t);t.byIndex=i,r.splice(i,0,{identifier:p,updater:f,references:1})}a.push(p)}return a}e.exports=function(e,n){var a=t(e=e||[],n=n||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=o(a[i]);r[s].references--}for(var d=t(e,n),c=0;c<a.length;c++){var p=o(a[c]);0===r[p].references&&(r[p].updater(),r.splice(p,1))}a=d}}},659(e){var r={};e.exports=function(e,o){var t=function(e){if(void 0===r[e]){var o=document.querySelector(e);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(e){o=null}r[e]=o}return r[e]}(e);if(!t)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");t.appendChild(o)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,o){e.exports=function(e){var r=o.nc;r&&e.setAttribute("nonce",r)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(o){var t,n,a;t="",o.supports&&(t+="@supports (".concat(o.supports,") {")),o.media&&(t+="@media ".concat(o.media," {")),(n=void 0!==o.layer)&&(t+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),t+=o.css,n&&(t+="}"),o.media&&(t+="}"),o.supports&&(t+="}"),(a=o.sourceMap)&&"u">typeof btoa&&(t+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(t,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},959(e,r,o){var t=o(72),n=o.n(t),a=o(825),i=o.n(a),s=o(659),d=o.n(s),c=o(56),p=o.n(c),l=o(540),u=o.n(l),f=o(113),h=o.n(f),b=o(646),v={};v.styleTagTransform=h(),v.setAttributes=p(),v.insert=d().bind(null,"head"),v.domAPI=i(),v.insertStyleElement=u(),n()(b.A,v),b.A&&b.A.locals&&b.A.locals}}]);