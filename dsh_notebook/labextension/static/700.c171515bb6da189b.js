"use strict";(self.rspackChunkdsh_notebook=self.rspackChunkdsh_notebook||[]).push([[700],{646(e,r,t){var o=t(601),n=t.n(o),a=t(314),i=(t.n(a))()(n());i.push([e.id,`/* dsh-notebook: the waiting signal (toolbar / status-bar button, tab badge). */
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
`,""]),t.d(r,{},{A:i})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var t="",o=void 0!==r[5];return r[4]&&(t+="@supports (".concat(r[4],") {")),r[2]&&(t+="@media ".concat(r[2]," {")),o&&(t+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),t+=e(r),o&&(t+="}"),r[2]&&(t+="}"),r[4]&&(t+="}"),t}).join("")},r.i=function(e,t,o,n,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(o)for(var s=0;s<this.length;s++){var d=this[s][0];null!=d&&(i[d]=!0)}for(var c=0;c<e.length;c++){var p=[].concat(e[c]);o&&i[p[0]]||(void 0!==a&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=a),t&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=t),n&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=n):p[4]="".concat(n)),r.push(p))}},r}},601(e){e.exports=function(e){return e[1]}},72(e){var r=[];function t(e){for(var t=-1,o=0;o<r.length;o++)if(r[o].identifier===e){t=o;break}return t}function o(e,o){for(var n={},a=[],i=0;i<e.length;i++){var s=e[i],d=o.base?s[0]+o.base:s[0],c=n[d]||0,p="".concat(d," ").concat(c);n[d]=c+1;var l=t(p),u={css:s[1],media:s[2],sourceMap:s[3],supports:s[4],layer:s[5]};if(-1!==l)r[l].references++,r[l].updater(u);else{var f=function(e,r){var t=r.domAPI(r);return t.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&t.update(e=r):t.remove()}}(u,o);o.byIndex=i,r.splice(i,0,{identifier:p,updater:f,references:1})}a.push(p)}return a}e.exports=function(e,n){var a=o(e=e||[],n=n||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var s=t(a[i]);r[s].references--}for(var d=o(e,n),c=0;c<a.length;c++){var p=t(a[c]);0===r[p].references&&(r[p].updater(),r.splice(p,1))}a=d}}},659(e){var r={};e.exports=function(e,t){var o=function(e){if(void 0===r[e]){var t=document.querySelector(e);if(window.HTMLIFrameElement&&t instanceof window.HTMLIFrameElement)try{t=t.contentDocument.head}catch(e){t=null}r[e]=t}return r[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(t)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,t){e.exports=function(e){var r=t.nc;r&&e.setAttribute("nonce",r)}},825(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(t){var o,n,a;o="",t.supports&&(o+="@supports (".concat(t.supports,") {")),t.media&&(o+="@media ".concat(t.media," {")),(n=void 0!==t.layer)&&(o+="@layer".concat(t.layer.length>0?" ".concat(t.layer):""," {")),o+=t.css,n&&(o+="}"),t.media&&(o+="}"),t.supports&&(o+="}"),(a=t.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(o,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},959(e,r,t){var o=t(72),n=t.n(o),a=t(825),i=t.n(a),s=t(659),d=t.n(s),c=t(56),p=t.n(c),l=t(540),u=t.n(l),f=t(113),h=t.n(f),b=t(646),v={};v.styleTagTransform=h(),v.setAttributes=p(),v.insert=d().bind(null,"head"),v.domAPI=i(),v.insertStyleElement=u(),n()(b.A,v),b.A&&b.A.locals&&b.A.locals}}]);